import { type Deps, defaultDeps } from '../lib/deps';
import { completeFederation } from '../lib/federation/complete';
import { federationEndpoints } from '../lib/federation/connection';
import { type OidcDeps, verifyOidcCallback } from '../lib/federation/oidc';
import { FederationRefused, pageError } from '../lib/federation/refusal';
import { hostedPage } from '../lib/hosted/http';
import { noStore, type OperationDoc } from '../lib/http/operation-doc';
import { pageHandler } from '../lib/http/page-handler';
import * as z from '../lib/zod';

/**
 * The IdP's authorization response (OIDC Core 3.1.2.5, 3.1.2.6): `state` names the pending
 * sign-in; the rest (`code`, `iss`, `error`, and what IdPs add, such as `session_state`)
 * is read by openid-client from the query as sent.
 */
export const query = z.looseObject({ state: z.optional(z.string().check(z.maxLength(512))) });

/** GET /sso/oidc/callback (docs/api.md 14.4): the organization's OpenID Connect IdP sends the browser back here. */
export function makeHandler(deps: Deps & Pick<OidcDeps, 'idpDeadlineMs'>) {
  return pageHandler(deps, { ...hostedPage, query }, ({ deps, event, query }) =>
    completeFederation(deps, event, { key: query.state }, async (connection, pending) => {
      if (connection.type !== 'oidc') throw new FederationRefused('invalid_response', 'an OIDC answer for a SAML connection');
      const callback = new URL(federationEndpoints(deps.config.issuer, connection.id).redirectUri);
      callback.search = event.rawQueryString;
      return verifyOidcCallback(deps, connection, pending, callback);
    }),
  );
}

export const handler = makeHandler(defaultDeps());

/** This operation in docs/openapi.json (scripts/lib/openapi.ts renders it). */
export const operation: OperationDoc = {
  section: '14.4',
  summary: "OpenID Connect callback: the organization's identity provider sends the browser back; on to the app",
  tag: 'auth',
  caller: 'none',
  query: true,
  html: true,
  answers: [
    { status: 200, description: 'The consent page (a third-party app the user has not yet allowed).', headers: noStore },
    { status: 303, description: 'Back to the app with the code.', headers: { Location: undefined, ...noStore } },
  ],
  failures: (['invalid_response', 'domain_not_allowed', 'no_account', 'idp_unreachable'] as const).map(pageError),
};
