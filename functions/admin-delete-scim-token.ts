import { type Deps, defaultDeps } from '../lib/deps';
import { NotFoundError } from '../lib/errors';
import { httpHandler } from '../lib/http/handler';
import { noStore, type OperationDoc, permissionDenied } from '../lib/http/operation-doc';
import { ok } from '../lib/http/reply';
import { deleteScimToken, SCIM_TOKEN_DELETED, SCIM_TOKEN_NOT_FOUND } from '../lib/scim/tokens';
import * as z from '../lib/zod';

export const params = z.object({ tokenId: z.string().check(z.minLength(1), z.maxLength(128)) });

/** DELETE /admin/scim-tokens/{tokenId} (docs/api.md 13.3): the token's next request is refused. */
export function makeHandler(deps: Deps) {
  return httpHandler(deps, { identity: 'required', role: 'ADMIN', params }, async ({ params, identity, deps }) => {
    await deleteScimToken(deps, identity, params.tokenId);
    return ok({ message: SCIM_TOKEN_DELETED });
  });
}

export const handler = makeHandler(defaultDeps());

/** This operation in docs/openapi.json (scripts/lib/openapi.ts renders it). */
export const operation: OperationDoc = {
  section: '13.3',
  summary: 'Delete a SCIM token; its next request is refused (ADMIN only)',
  tag: 'admin',
  caller: 'admin',
  params: true,
  answers: [{ status: 200, description: 'Deleted.', body: 'ScimTokenDeletedEnvelope', headers: noStore }],
  failures: [permissionDenied, new NotFoundError(SCIM_TOKEN_NOT_FOUND)],
};
