import type { MiddlewareObj } from '@middy/core';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import type { Identity, Role } from '../../caller';
import { ForbiddenError, ServiceUnavailableError, UnauthorizedError } from '../../errors';
import { authorizerUnavailable, identityFromEvent } from '../identity';

/** `required`: 401 without identity; `optional`: the handler decides; `none`: ignored. */
export type IdentityRule = 'required' | 'optional' | 'none';

export interface IdentityOptions {
  identity: IdentityRule;
  /** Only callers with this role (403 `Permission denied`, also without identity). */
  role?: Role;
}

/** What {@link identity} adds to the event: the caller the authorizer vouched for, if any. */
export interface IdentityEvent {
  identity: Identity | null;
}

/**
 * The caller's identity from the authorizer's context, checked against the route's rule:
 * 503 when the authorizer could not check a token, then 403 for a missing role, then 401
 * for a missing identity. It runs before the body is parsed, so a call without identity
 * and with bad input gets 401/403, never 400 (docs/api.md 2).
 */
export function identity(options: IdentityOptions): MiddlewareObj<APIGatewayProxyEventV2 & IdentityEvent> {
  return {
    before: ({ event }) => {
      const caller = options.identity === 'none' ? null : identityFromEvent(event);
      if (!caller && options.identity !== 'none' && authorizerUnavailable(event)) throw new ServiceUnavailableError();
      if (options.role && caller?.role !== options.role) throw new ForbiddenError();
      if (options.identity === 'required' && !caller) throw new UnauthorizedError();
      event.identity = caller;
    },
  };
}
