import { importResult as importResultAnswer } from '../lib/admin/api-schemas';
import { IMPORT_MAX_BODY_BYTES, IMPORT_MAX_ROWS, importUsers } from '../lib/admin/import';
import { type Deps, defaultDeps } from '../lib/deps';
import { httpHandler } from '../lib/http/handler';
import { noStore, type OperationDoc, permissionDenied } from '../lib/http/operation-doc';
import { ok } from '../lib/http/reply';
import * as z from '../lib/zod';

/** docs/api.md 13.2: up to 1,000 rows, each checked on its own (lib/admin/import.ts), so a bad row fails alone. */
export const body = z.strictObject({ users: z.array(z.unknown()).check(z.minLength(1), z.maxLength(IMPORT_MAX_ROWS)) });

/** The `data` of the success envelope (docs/api.md 5). */
export const response = importResultAnswer;

/** POST /admin/users/import (docs/api.md 13.2): users of another platform, with their password hashes. */
export function makeHandler(deps: Deps) {
  return httpHandler(
    deps,
    { identity: 'required', response, role: 'ADMIN', body, maxBodyBytes: IMPORT_MAX_BODY_BYTES },
    async ({ body, identity, deps }) => ok(await importUsers(deps, identity, body.users)),
  );
}

export const handler = makeHandler(defaultDeps());

/** This operation in docs/openapi.json (scripts/lib/openapi.ts renders it). */
export const operation: OperationDoc = {
  section: '13.2',
  summary: 'Import users with their password hashes from another platform, up to 1,000 rows (ADMIN only)',
  tag: 'admin',
  caller: 'admin',
  bodyTypes: ['json'],
  answers: [
    {
      status: 200,
      description: 'How many users were created, and each failed row’s error.',
      body: 'ImportResultEnvelope',
      headers: noStore,
    },
  ],
  failures: [permissionDenied],
};
