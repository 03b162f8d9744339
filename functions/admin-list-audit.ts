import { auditPage as auditPageAnswer } from '../lib/admin/api-schemas';
import { invalidCursor } from '../lib/admin/page-cursor';
import { AUDIT_EVENT_TYPES } from '../lib/audit/events';
import { listEvents } from '../lib/audit/trail';
import { type Deps, defaultDeps } from '../lib/deps';
import { httpHandler } from '../lib/http/handler';
import { noStore, type OperationDoc, permissionDenied } from '../lib/http/operation-doc';
import { ok } from '../lib/http/reply';
import * as z from '../lib/zod';

/** docs/api.md 9.8. */
export const query = z.strictObject({
  limit: z._default(z.coerce.number().check(z.int(), z.gte(1), z.lte(100)), 50),
  cursor: z.optional(z.string().check(z.minLength(1), z.maxLength(1024))),
  userId: z.optional(z.uuid()),
  type: z.optional(z.enum(AUDIT_EVENT_TYPES)),
});

/** The `data` of the success envelope (docs/api.md 5). */
export const response = auditPageAnswer;

/** GET /admin/audit (docs/api.md 9.8): a page of the tenant's audit trail, newest first. */
export function makeHandler(deps: Deps) {
  return httpHandler(deps, { identity: 'required', response, role: 'ADMIN', query }, async ({ query, identity, deps }) =>
    ok(await listEvents(deps, identity, query)),
  );
}

export const handler = makeHandler(defaultDeps());

/** This operation in docs/openapi.json (scripts/lib/openapi.ts renders it). */
export const operation: OperationDoc = {
  section: '9.8',
  summary: 'A page of the tenant’s audit trail, newest first, with filters (ADMIN only)',
  tag: 'admin',
  caller: 'admin',
  query: true,
  answers: [
    {
      status: 200,
      description: 'The events, newest first, and the cursor of the next page.',
      body: 'AuditPageEnvelope',
      headers: noStore,
    },
  ],
  failures: [invalidCursor(), permissionDenied],
};
