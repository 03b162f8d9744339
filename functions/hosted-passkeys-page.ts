import { type Deps, defaultDeps } from '../lib/deps';
import { hostedPage } from '../lib/hosted/http';
import { showPasskeys } from '../lib/hosted/passkey-flow';
import { httpHandler } from '../lib/http/handler';

/** GET /oauth2/hosted/passkeys (docs/api.md 11.11): the signed-in browser's passkeys, and adding one. */
export function makeHandler(deps: Deps) {
  return httpHandler(deps, hostedPage, ({ deps, event }) => showPasskeys(deps, event));
}

export const handler = makeHandler(defaultDeps());
