import { type Deps, defaultDeps } from '../lib/deps';
import { hostedPage } from '../lib/hosted/http';
import { showPasskeys } from '../lib/hosted/passkey-flow';
import { noStore, type OperationDoc, unauthorized } from '../lib/http/operation-doc';
import { pageHandler } from '../lib/http/page-handler';

/** GET /oauth2/hosted/passkeys (docs/api.md 11.11): the signed-in browser's passkeys, and adding one. */
export function makeHandler(deps: Deps) {
  return pageHandler(deps, hostedPage, ({ deps, event }) => showPasskeys(deps, event));
}

export const handler = makeHandler(defaultDeps());

/** This operation in docs/openapi.json (scripts/lib/openapi.ts renders it). */
export const operation: OperationDoc = {
  section: '11.11',
  summary: 'Hosted passkeys page: the signed-in browser’s passkeys, and adding one after a recent sign-in',
  tag: 'oauth2',
  caller: 'none',
  html: true,
  answers: [{ status: 200, description: 'The passkeys page.', headers: noStore }],
  failures: [unauthorized],
};
