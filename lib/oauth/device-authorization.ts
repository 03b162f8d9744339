import { epochSeconds } from '../clock';
import { hashToken } from '../crypto/token-hash';
import type { Deps } from '../deps';
import type { OAuthClient } from './client';
import {
  DEVICE_CODE_GRANT,
  DEVICE_CODE_TTL_SECONDS,
  DEVICE_POLL_INTERVAL_SECONDS,
  type DeviceAuthorization,
  displayUserCode,
  newUserCode,
} from './device-code';
import { oauthErrors } from './errors';
import { formatScope } from './scope';
import { requestedScope } from './token';

/** The device authorization response (RFC 8628 3.2). */
export interface DeviceAuthorizationResponse {
  device_code: string;
  user_code: string;
  verification_uri: string;
  verification_uri_complete: string;
  expires_in: number;
  interval: number;
}

/** How many user codes are drawn before giving up: with 20^8 codes, a second collision means something else is wrong. */
const USER_CODE_DRAWS = 3;

/**
 * The device page of the client's tenant (docs/api.md 16.4): `?tenant=` names it, so that
 * a person not yet signed in gets that tenant's sign-in first (docs/api.md 15.1).
 */
export function verificationUri(issuer: string, tenantId: string, userCode?: string): string {
  const url = new URL('/device', issuer);
  url.searchParams.set('tenant', tenantId);
  if (userCode !== undefined) url.searchParams.set('user_code', displayUserCode(userCode));
  return url.href;
}

/**
 * POST /oauth2/device_authorization (RFC 8628 3.1, 3.2) for an authenticated client:
 * registered for the device code grant (else `unauthorized_client`), the scope within its
 * own (else `invalid_scope`; none asked: all of them). A device code of 256 random bits
 * and a user code of 8 letters, both stored as hashes only; a user code in use by
 * another live authorization is drawn again.
 */
export async function startDeviceAuthorization(
  deps: Pick<Deps, 'config' | 'clock' | 'random' | 'store' | 'log'>,
  client: OAuthClient,
  scope: string | undefined,
): Promise<DeviceAuthorizationResponse> {
  if (!client.grantTypes.includes(DEVICE_CODE_GRANT)) throw oauthErrors.unauthorizedClient();
  const granted = requestedScope(scope, client.scopes);
  const now = epochSeconds(deps.clock);
  const deviceCode = deps.random.token();
  for (let draw = 0; draw < USER_CODE_DRAWS; draw++) {
    const userCode = newUserCode(deps.random);
    const authorization: DeviceAuthorization = {
      deviceCodeHash: hashToken(deviceCode),
      userCodeHash: hashToken(userCode),
      tenantId: client.tenantId,
      clientId: client.clientId,
      scope: granted,
      createdAt: now,
      expiresAt: now + DEVICE_CODE_TTL_SECONDS,
      interval: DEVICE_POLL_INTERVAL_SECONDS,
      nextPollAt: now,
      status: 'pending',
    };
    if (!(await deps.store.deviceCodes.create(authorization, now))) continue;
    deps.log.info('device_authorization_started', { tenantId: client.tenantId, clientId: client.clientId, scope: formatScope(granted) });
    return {
      device_code: deviceCode,
      user_code: displayUserCode(userCode),
      verification_uri: verificationUri(deps.config.issuer, client.tenantId),
      verification_uri_complete: verificationUri(deps.config.issuer, client.tenantId, userCode),
      expires_in: DEVICE_CODE_TTL_SECONDS,
      interval: DEVICE_POLL_INTERVAL_SECONDS,
    };
  }
  throw new Error('No free user code after several draws');
}
