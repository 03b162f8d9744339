import type { APIGatewayRequestAuthorizerEventV2, APIGatewaySimpleAuthorizerWithContextResult } from 'aws-lambda';
import { epochSeconds } from '../lib/clock';
import { type Deps, defaultDeps } from '../lib/deps';
import { type AuthorizerContext, toAuthorizerContext } from '../lib/http/identity';
import { liveSession } from '../lib/sessions/live-session';
import { verifyAccessToken } from '../lib/tokens/access-token';

type Result = APIGatewaySimpleAuthorizerWithContextResult<AuthorizerContext>;

const BEARER = /^Bearer ([A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+)$/;

/**
 * The REQUEST authorizer (docs/api.md 3). It always lets the request through: with a
 * valid token of a live session it attaches the caller's context, otherwise none,
 * and the function answers 401 in the envelope. When the session store cannot be
 * read it says so, and the function answers 503 instead of logging everyone out.
 */
export function makeHandler(deps: Deps) {
  return async (event: APIGatewayRequestAuthorizerEventV2): Promise<Result> => {
    const anonymous: Result = { isAuthorized: true, context: {} };
    const header = event.headers?.authorization ?? event.headers?.Authorization;
    const token = header ? BEARER.exec(header.trim())?.[1] : undefined;
    if (!token) return anonymous;

    const now = epochSeconds(deps.clock);
    const { config } = deps;
    try {
      // The public keys only: the authorizer verifies and never signs (docs/api.md 3).
      const verified = await verifyAccessToken(
        await deps.publicKeys.load(),
        { issuer: config.issuer, audience: config.accessTokenAudience },
        token,
        now,
      );
      if (!verified.ok) {
        deps.log.info('token_rejected', { reason: verified.reason, requestId: event.requestContext?.requestId });
        return anonymous;
      }
      const { tenantId, sessionId, userId, idp } = verified.identity;
      // The session must be the token's user's: a token naming someone else's session (or
      // its own session with someone else's sub) gets nothing, even if it was signed with our
      // key. Role, shop and recency come from the records, not from the token.
      const live = await liveSession(deps, { tenantId, sessionId, userId, idp }, now);
      if (!live) {
        deps.log.info('token_rejected', { reason: 'session_inactive', tenantId, userId, requestId: event.requestContext?.requestId });
        return anonymous;
      }
      return { isAuthorized: true, context: toAuthorizerContext({ ...verified.identity, ...live }) };
    } catch (error) {
      deps.log.error('authorizer_failed', { error, requestId: event.requestContext?.requestId });
      return { isAuthorized: true, context: { authError: 'unavailable' } };
    }
  };
}

export const handler = makeHandler(defaultDeps());
