import { oneUser as oneUserAnswer } from '../lib/admin/api-schemas';
import { userPath } from '../lib/admin/schemas';
import { UNKNOWN_SHOP } from '../lib/admin/shops';
import { changeUser, LAST_ADMIN, USER_NOT_FOUND } from '../lib/admin/users';
import { type Deps, defaultDeps } from '../lib/deps';
import { ConflictError, NotFoundError, ValidationError } from '../lib/errors';
import { httpHandler } from '../lib/http/handler';
import { noStore, type OperationDoc, permissionDenied } from '../lib/http/operation-doc';
import { ok } from '../lib/http/reply';
import { shopId } from '../lib/http/schemas';
import { ROLES } from '../lib/users/user';
import * as z from '../lib/zod';

/** docs/api.md 9.3. */
export const body = z.strictObject({
  role: z.optional(z.enum(ROLES)),
  shopId: z.optional(shopId),
  status: z.optional(z.enum(['active', 'disabled'])),
});

export const params = userPath;

/** The `data` of the success envelope (docs/api.md 5). */
export const response = oneUserAnswer;

/** PATCH /admin/users/{userId} (docs/api.md 9.3): role, shop or status; disabling signs the user out everywhere. */
export function makeHandler(deps: Deps) {
  return httpHandler(deps, { identity: 'required', response, role: 'ADMIN', body, params }, async ({ body, params, identity, deps }) =>
    ok({ user: await changeUser(deps, identity, params.userId, body) }),
  );
}

export const handler = makeHandler(defaultDeps());

/** This operation in docs/openapi.json (scripts/lib/openapi.ts renders it). */
export const operation: OperationDoc = {
  section: '9.3',
  summary: 'Change a user’s role, shop or status; disabling ends every session and grant (ADMIN only)',
  tag: 'admin',
  caller: 'admin',
  bodyTypes: ['json'],
  params: true,
  answers: [{ status: 200, description: 'The user as changed.', body: 'UserEnvelope', headers: noStore }],
  failures: [
    new ValidationError(UNKNOWN_SHOP, { code: 'UNKNOWN_SHOP' }),
    permissionDenied,
    new NotFoundError(USER_NOT_FOUND),
    new ConflictError(LAST_ADMIN, { code: 'LAST_ADMIN' }),
  ],
};
