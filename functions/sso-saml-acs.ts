import { type Deps, defaultDeps } from '../lib/deps';
import { completeFederation, FederationRefused } from '../lib/federation/complete';
import { pageError } from '../lib/federation/refusal';
import { verifySamlResponse } from '../lib/federation/saml';
import { hostedPage } from '../lib/hosted/http';
import { hostedFailures, noStore, type OperationDoc } from '../lib/http/operation-doc';
import { pageHandler } from '../lib/http/page-handler';
import * as z from '../lib/zod';

export const params = z.strictObject({ connectionId: z.string().check(z.minLength(1), z.maxLength(128)) });

/** The HTTP-POST binding's form (SAML bindings 3.5.4); what is missing is refused, and audited, by the checks. */
export const body = z.strictObject({
  SAMLResponse: z.optional(z.string().check(z.maxLength(64 * 1024))),
  RelayState: z.optional(z.string().check(z.maxLength(512))),
});

/** A SAML response with its assertion, certificate and attributes; hosted forms are 8 KiB. */
const SAML_FORM_BYTES = 64 * 1024;

/** POST /sso/saml/{connectionId}/acs (docs/api.md 14.5): the IdP's response, posted by the browser. */
export function makeHandler(deps: Deps) {
  return pageHandler(deps, { ...hostedPage, params, body, maxBodyBytes: SAML_FORM_BYTES }, ({ deps, event, params, body }) =>
    completeFederation(deps, event, { key: body.RelayState, connectionId: params.connectionId }, async (connection, pending) => {
      if (connection.type !== 'saml') throw new FederationRefused('invalid_response', 'not a SAML connection');
      return verifySamlResponse(deps, connection, pending, body);
    }),
  );
}

export const handler = makeHandler(defaultDeps());

/** This operation in docs/openapi.json (scripts/lib/openapi.ts renders it). */
export const operation: OperationDoc = {
  section: '14.5',
  summary: "SAML assertion consumer service: the IdP's response (then consent or the code)",
  tag: 'oauth2',
  caller: 'none',
  params: true,
  bodyTypes: ['form'],
  html: true,
  answers: [
    { status: 200, description: 'The consent page.', headers: noStore },
    { status: 303, description: 'Back to the client with the code.', headers: { Location: undefined, ...noStore } },
  ],
  failures: hostedFailures(pageError('invalid_response'), pageError('domain_not_allowed'), pageError('no_account')),
};
