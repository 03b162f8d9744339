import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { type Identity, isAmr, ROLES } from '../caller';
import * as z from '../zod';

/**
 * The authorizer's context as API Gateway hands it over (`requestContext.authorizer.lambda`).
 * Context values are flat strings, so `amr` travels comma-separated and `authTime` as digits.
 */
export type AuthorizerContext = Record<string, string>;

const contextSchema = z.object({
  userId: z.string().check(z.minLength(1)),
  username: z.string().check(z.minLength(1)),
  role: z.enum(ROLES),
  tenantId: z.string().check(z.minLength(1)),
  shopId: z.string().check(z.minLength(1)),
  sessionId: z.string().check(z.minLength(1)),
  amr: z.string(),
  authTime: z.string().check(z.regex(/^[0-9]{1,12}$/)),
});

export function toAuthorizerContext(identity: Identity): AuthorizerContext {
  return { ...identity, amr: identity.amr.join(','), authTime: String(identity.authTime) };
}

/** The payload 2.0 event types have no authorizer; a Lambda authorizer puts its context here. */
const withAuthorizer = z.object({ authorizer: z.object({ lambda: z.looseObject({}) }) });

function lambdaContext(event: APIGatewayProxyEventV2): Record<string, unknown> | undefined {
  return withAuthorizer.safeParse(event.requestContext).data?.authorizer.lambda;
}

/**
 * serverless-offline lets a request replace the authorizer's context with this
 * header. API Gateway has no such thing; locally a request carrying it gets no identity.
 */
const OFFLINE_OVERRIDE = 'sls-offline-authorizer-override';

/** The caller's identity, or null when the authorizer gave none (no, bad or revoked token). */
export function identityFromEvent(event: APIGatewayProxyEventV2): Identity | null {
  if (event.headers?.[OFFLINE_OVERRIDE] !== undefined) return null;
  const parsed = contextSchema.safeParse(lambdaContext(event));
  if (!parsed.success) return null;
  // Only the methods a session can carry (lib/caller.ts): a context with another does not parse.
  const amr = parsed.data.amr.split(',').filter(Boolean);
  if (!amr.every(isAmr)) return null;
  return { ...parsed.data, amr, authTime: Number(parsed.data.authTime) };
}

/** True when the authorizer could not check the token because a dependency failed. */
export function authorizerUnavailable(event: APIGatewayProxyEventV2): boolean {
  return lambdaContext(event)?.authError === 'unavailable';
}
