import { shopList as shopListAnswer } from '../lib/admin/api-schemas';
import { listShops } from '../lib/admin/shops';
import { type Deps, defaultDeps } from '../lib/deps';
import { httpHandler } from '../lib/http/handler';
import { noStore, type OperationDoc, permissionDenied } from '../lib/http/operation-doc';
import { ok } from '../lib/http/reply';

/** The `data` of the success envelope (docs/api.md 5). */
export const response = shopListAnswer;

/** GET /admin/shops (docs/api.md 9.7): every shop of the ADMIN's tenant. */
export function makeHandler(deps: Deps) {
  return httpHandler(deps, { identity: 'required', response, role: 'ADMIN' }, async ({ identity, deps }) =>
    ok({ shops: await listShops(deps, identity) }),
  );
}

export const handler = makeHandler(defaultDeps());

/** This operation in docs/openapi.json (scripts/lib/openapi.ts renders it). */
export const operation: OperationDoc = {
  section: '9.7',
  summary: 'Every shop of the tenant (ADMIN only)',
  tag: 'admin',
  caller: 'admin',
  answers: [{ status: 200, description: 'The shops, by id.', body: 'ShopListEnvelope', headers: noStore }],
  failures: [permissionDenied],
};
