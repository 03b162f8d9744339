import { type Deps, defaultDeps } from '../lib/deps';
import { pageHandler } from '../lib/hosted/http';
import { showPasskeys } from '../lib/hosted/passkey-flow';

/** GET /oauth2/hosted/passkeys (docs/api.md 11.11): the signed-in browser's passkeys, and adding one. */
export function makeHandler(deps: Deps) {
  return pageHandler(deps, (event, log) => showPasskeys({ ...deps, log }, event));
}

export const handler = makeHandler(defaultDeps());
