import * as z from 'zod';
import { oneShop as oneShopAnswer } from '../lib/admin/api-schemas';
import { createShop } from '../lib/admin/shops';
import { type Deps, defaultDeps } from '../lib/deps';
import { httpHandler } from '../lib/http/handler';
import { ok } from '../lib/http/reply';
import { shopId } from '../lib/http/schemas';

/** docs/api.md 9.7: ids are canonical (10.2); names are one line of text. */
export const body = z.strictObject({
  shopId,
  name: z
    .string()
    .trim()
    .min(1)
    .max(100)
    .regex(/^[^\p{Cc}\p{Cf}\p{Zl}\p{Zp}]+$/u),
});

/** The `data` of the success envelope (docs/api.md 5). */
export const response = oneShopAnswer;

/** POST /admin/shops (docs/api.md 9.7): a new shop of the ADMIN's tenant. */
export function makeHandler(deps: Deps) {
  return httpHandler(deps, { identity: 'required', response, role: 'ADMIN', body }, async ({ body, identity, deps }) =>
    ok({ shop: await createShop(deps, identity, body) }, 201),
  );
}

export const handler = makeHandler(defaultDeps());
