import { oneShop as oneShopAnswer } from '../lib/admin/api-schemas';
import { newShop } from '../lib/admin/schemas';
import { createShop, SHOP_EXISTS } from '../lib/admin/shops';
import { type Deps, defaultDeps } from '../lib/deps';
import { ConflictError } from '../lib/errors';
import { httpHandler } from '../lib/http/handler';
import { noStore, type OperationDoc, permissionDenied } from '../lib/http/operation-doc';
import { ok } from '../lib/http/reply';

/** docs/api.md 9.7: ids are canonical (10.2); names are one line of text. */
export const body = newShop;

/** The `data` of the success envelope (docs/api.md 5). */
export const response = oneShopAnswer;

/** POST /admin/shops (docs/api.md 9.7): a new shop of the ADMIN's tenant. */
export function makeHandler(deps: Deps) {
  return httpHandler(deps, { identity: 'required', response, role: 'ADMIN', body }, async ({ body, identity, deps }) =>
    ok({ shop: await createShop(deps, identity, body) }, 201),
  );
}

export const handler = makeHandler(defaultDeps());

/** This operation in docs/openapi.json (scripts/lib/openapi.ts renders it). */
export const operation: OperationDoc = {
  section: '9.7',
  summary: 'Create a shop of the tenant (ADMIN only)',
  tag: 'admin',
  caller: 'admin',
  bodyTypes: ['json'],
  answers: [{ status: 201, description: 'The new shop.', body: 'ShopEnvelope', headers: noStore }],
  failures: [permissionDenied, new ConflictError(SHOP_EXISTS, { code: 'SHOP_EXISTS' })],
};
