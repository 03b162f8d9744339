import { deviceCookie } from '../lib/abuse/device-token';
import { type Deps, defaultDeps } from '../lib/deps';
import { ForbiddenError, ValidationError } from '../lib/errors';
import { SSO_REQUIRED } from '../lib/federation/sso-required';
import { httpHandler } from '../lib/http/handler';
import { noStore, type OperationDoc } from '../lib/http/operation-doc';
import { ok } from '../lib/http/reply';
import { username } from '../lib/http/schemas';
import { acceptedFactor, acceptInvitation, INVALID_INVITATION } from '../lib/invitations/invitations';
import { requireClientSecretPepper } from '../lib/oauth/client-secret';
import { authPayload as authPayloadAnswer } from '../lib/sessions/api-schemas';
import { deviceOf } from '../lib/sessions/device';
import { apiSession, signIn, withDeviceToken } from '../lib/sessions/sign-in';
import { prefetchKeys } from '../lib/tokens/signing-keys';
import * as z from '../lib/zod';

/** docs/api.md 13.1: the password as register's (4.3). */
export const body = z.strictObject({
  token: z.string().check(z.minLength(1), z.maxLength(512)),
  username,
  password: z.string().check(z.minLength(6), z.maxLength(128)),
});

/** The `data` of the success envelope (docs/api.md 5). */
export const response = authPayloadAnswer;

/** POST /auth/invitations/accept (docs/api.md 13.1): the JSON twin of the hosted acceptance page. */
export function makeHandler(deps: Deps) {
  requireClientSecretPepper(deps.config);
  return httpHandler(deps, { identity: 'none', response, body, prefetch: prefetchKeys(deps.keys) }, async ({ body, deps, event }) => {
    const accepted = await acceptInvitation(deps, body.token, body);
    const { opened } = await signIn(deps, {
      tenantId: accepted.user.tenantId,
      firstFactor: acceptedFactor(accepted),
      opening: withDeviceToken(deps, apiSession(deps, deviceOf(event))),
    });
    const payload = { ...opened.opened, deviceToken: opened.deviceToken };
    return ok(payload, 201, { 'Set-Cookie': deviceCookie(accepted.user, opened.deviceToken) });
  });
}

export const handler = makeHandler(defaultDeps());

/** This operation in docs/openapi.json (scripts/lib/openapi.ts renders it). */
export const operation: OperationDoc = {
  section: '13.1',
  summary: 'Accept an invitation with a username and password: the account and a session',
  tag: 'auth',
  caller: 'none',
  bodyTypes: ['json'],
  answers: [{ status: 201, description: 'The new account with a session.', body: 'AuthPayloadEnvelope', headers: noStore }],
  failures: [
    new ValidationError(INVALID_INVITATION, { code: 'INVALID_INVITATION' }),
    new ValidationError('Password is too common', { code: 'PASSWORD_TOO_COMMON' }),
    new ValidationError('Username already exists', { code: 'USERNAME_TAKEN' }),
    new ForbiddenError(SSO_REQUIRED, { code: 'SSO_REQUIRED' }),
  ],
};
