import { epochSeconds } from '../clock';
import { hashToken } from '../crypto/token-hash';
import type { Deps } from '../deps';
import { browserRedirect } from '../hosted/http';
import type { Interaction } from '../hosted/interaction';
import type { Reply } from '../http/reply';
import { signInEvent } from '../sessions/sign-in';
import type { FederationRequest } from '../store/federation';
import type { Connection } from './connection';
import { federationCookie } from './cookie';
import { oidcAuthorizationUrl } from './oidc';
import { FederationRefused, pageError } from './refusal';
import { samlRedirectUrl } from './saml-request';

/*
 * Setting off to the organization's identity provider (docs/api.md 14.3): a pending
 * request, single use and bound to this browser by a cookie of its own, then the
 * protocol's redirect (an OIDC authorization request, a SAML AuthnRequest).
 */

/** How long the IdP has to send the person back. */
export const FEDERATION_TTL_SECONDS = 10 * 60;

export type BeginDeps = Pick<Deps, 'config' | 'clock' | 'random' | 'log' | 'store' | 'mfaSecrets' | 'source'>;

/**
 * Sends the browser of a pending interaction to the connection's IdP (docs/api.md 14.3).
 * An IdP that cannot be reached (its OIDC discovery) ends on the error page, audited.
 */
export async function beginFederation(
  deps: BeginDeps,
  interaction: Pick<Interaction, 'tenantId' | 'id' | 'expiresAt'>,
  connection: Connection,
  loginHint?: string | undefined,
): Promise<Reply> {
  const now = epochSeconds(deps.clock);
  const secret = deps.random.token(32);
  const pending: FederationRequest = {
    key: deps.random.token(32),
    tenantId: interaction.tenantId,
    connectionId: connection.id,
    interactionId: interaction.id,
    browserHash: hashToken(secret),
    ...(connection.type === 'oidc' ? { codeVerifier: deps.random.token(32), nonce: deps.random.token(16) } : {}),
    createdAt: now,
    expiresAt: Math.min(now + FEDERATION_TTL_SECONDS, interaction.expiresAt),
  };
  let location: string;
  try {
    location =
      connection.type === 'oidc'
        ? await oidcAuthorizationUrl(deps, connection, pending, loginHint)
        : await samlRedirectUrl(deps, connection, pending, loginHint);
  } catch (error) {
    if (!(error instanceof FederationRefused)) throw error;
    const { tenantId } = interaction;
    deps.log.warn('federated_sign_in_refused', { tenantId, connectionId: connection.id, reason: error.reason, detail: error.detail });
    await signInEvent(deps, tenantId, undefined, undefined, 'login_failed', {
      reason: `federation_${error.reason}`,
      connectionId: connection.id,
    });
    throw pageError(error.reason);
  }
  await deps.store.federationRequests.create(pending);
  deps.log.info('federated_sign_in_started', { tenantId: interaction.tenantId, connectionId: connection.id, type: connection.type });
  return browserRedirect(location, { cookies: [federationCookie(secret, pending.expiresAt - now)] });
}
