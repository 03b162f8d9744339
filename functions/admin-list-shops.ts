import { shopList as shopListAnswer } from '../lib/admin/api-schemas';
import { listShops } from '../lib/admin/shops';
import { type Deps, defaultDeps } from '../lib/deps';
import { httpHandler } from '../lib/http/handler';
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
