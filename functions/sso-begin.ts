import { type Deps, defaultDeps } from '../lib/deps';
import { ValidationError } from '../lib/errors';
import { beginFederation } from '../lib/federation/begin';
import { interactionAtSignIn } from '../lib/hosted/flow';
import { hostedPage } from '../lib/hosted/http';
import { httpHandler } from '../lib/http/handler';
import { noStore, type OperationDoc } from '../lib/http/operation-doc';
import * as z from '../lib/zod';

export const query = z.strictObject({
  connection: z.string().check(z.minLength(1), z.maxLength(128)),
  login_hint: z.optional(z.string().check(z.maxLength(320))),
});

const expired = () => new ValidationError('Sign-in expired', { code: 'INTERACTION_EXPIRED' });

/**
 * GET /sso/begin (docs/api.md 14.3): where home-realm discovery sends the browser of a
 * pending sign-in; on to the connection's IdP. Its own function, so that the protocols'
 * libraries load here and not in the hosted sign-in's (docs/performance.md).
 */
export function makeHandler(deps: Deps) {
  return httpHandler(deps, { ...hostedPage, query }, async ({ deps, event, query }) => {
    const interaction = await interactionAtSignIn(deps, event);
    const connection = await deps.store.connections.find(query.connection);
    // Another tenant's connection, a disabled or deleted one: this sign-in cannot go there.
    if (!connection?.enabled || connection.tenantId !== interaction.tenantId) throw expired();
    return beginFederation(deps, interaction, connection, query.login_hint);
  });
}

export const handler = makeHandler(defaultDeps());

/** This operation in docs/openapi.json (scripts/lib/openapi.ts renders it). */
export const operation: OperationDoc = {
  section: '14.3',
  summary: "Hosted sign-in: set off to the organization's identity provider (home-realm discovery)",
  tag: 'auth',
  caller: 'none',
  query: true,
  html: true,
  answers: [{ status: 302, description: "Redirect to the identity provider's sign-in.", headers: { Location: undefined, ...noStore } }],
  failures: [expired()],
};
