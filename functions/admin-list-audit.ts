import * as z from 'zod';
import { auditPage as auditPageAnswer } from '../lib/admin/api-schemas';
import { INVALID_CURSOR } from '../lib/admin/users';
import { AUDIT_EVENT_TYPES } from '../lib/audit/events';
import { listEvents } from '../lib/audit/trail';
import { type Deps, defaultDeps } from '../lib/deps';
import { ValidationError } from '../lib/errors';
import { httpHandler } from '../lib/http/handler';
import { noStore, type OperationDoc, permissionDenied } from '../lib/http/operation-doc';
import { ok } from '../lib/http/reply';

/** docs/api.md 9.8. */
export const query = z.strictObject({
  limit: z.coerce.number().int().min(1).max(100).default(50),
  cursor: z.string().min(1).max(1024).optional(),
  userId: z.uuid().optional(),
  type: z.enum(AUDIT_EVENT_TYPES).optional(),
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
  failures: [new ValidationError(INVALID_CURSOR, { code: 'INVALID_CURSOR' }), permissionDenied],
};
