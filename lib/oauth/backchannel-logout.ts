import { createHash } from 'node:crypto';
import { epochSeconds } from '../clock';
import type { Delivery, DeliveryPlanner, RequestMaker } from '../deliveries/delivery';
import type { Deps } from '../deps';
import type { CloudEvent } from '../events/event';
import type { LogoutTarget } from '../store/oauth-grants';
import { signJwt } from '../tokens/signing-keys';
import * as z from '../zod';
import type { OAuthClient } from './client';

/*
 * OIDC Back-Channel Logout 1.0 (docs/api.md 17.3, docs/decisions/026-back-channel-logout.md):
 * when an event ends sessions, each client that holds one of them and registered a
 * back-channel logout URI gets a logout token there, through the delivery machinery
 * (lib/deliveries): the planner says who gets one, the request maker signs it at each attempt.
 */

/** The `events` member of a logout token (OIDC Back-Channel Logout 1.0 2.4). */
export const BACKCHANNEL_LOGOUT_EVENT = 'http://schemas.openid.net/event/backchannel-logout';

/** The `typ` header of a logout token (OIDC Back-Channel Logout 1.0 2.4, explicit typing per RFC 8725 3.11). */
export const LOGOUT_TOKEN_TYPE = 'logout+jwt';

/** How long a logout token is valid: made anew at each attempt, so a short life costs nothing. */
export const LOGOUT_TOKEN_TTL_SECONDS = 120;

/** What an event says about the sessions it ended (docs/events.md, the envelope). */
const endedSessionsSchema = z.object({
  endedSessions: z.union([z.literal('all'), z.array(z.string())]),
  keptSessionId: z.optional(z.string()),
});

/** A logout delivery's payload (lib/deliveries/delivery.ts): whom it logs out; never a secret. */
const logoutPayloadSchema = z.strictObject({ sub: z.string(), sid: z.optional(z.string()) });
export type LogoutPayload = z.output<typeof logoutPayloadSchema>;

type EndedSessions = z.output<typeof endedSessionsSchema>;

/**
 * Whether a grant was made in one of the ended sessions. For `all`, every grant of the
 * user but those of the kept session; a grant that records no session (made before grants
 * did) cannot be told apart from the kept one, so it gets a logout only when none was kept.
 */
function heldIn(grant: LogoutTarget, ended: EndedSessions): boolean {
  if (grant.kind !== 'authorization_code') return false;
  if (ended.endedSessions !== 'all') return grant.sessionId !== undefined && ended.endedSessions.includes(grant.sessionId);
  if (grant.sessionId === undefined) return ended.keptSessionId === undefined;
  return grant.sessionId !== ended.keptSessionId;
}

/**
 * The `sid` of a grant's logout token: the session its ID tokens name. A grant that
 * records no session has none, unless its client requires one: then the grant's id, the
 * `sid` its refreshed ID tokens carry (lib/oauth/token.ts).
 */
function sidOf(grant: LogoutTarget, client: OAuthClient): string | undefined {
  return grant.sessionId ?? (client.backchannelLogoutSessionRequired ? grant.id : undefined);
}

/** A delivery's id, the same however often the event is published (it is delivered at least once). */
function deliveryId(eventId: string, clientId: string, sid: string | undefined): string {
  const digest = createHash('sha256')
    .update(`backchannel_logout\n${eventId}\n${clientId}\n${sid ?? ''}`)
    .digest('base64url');
  return `bcl_${digest.slice(0, 32)}`;
}

type PlannerDeps = Pick<Deps, 'store' | 'clock'>;

/** The tenant's client with a back-channel logout URI, or undefined; each read once per batch. */
function clientReader(deps: PlannerDeps) {
  const read = new Map<string, Promise<OAuthClient | undefined>>();
  return (tenantId: string, clientId: string) => {
    let client = read.get(clientId);
    if (!client) {
      client = deps.store.oauthClients.find(clientId);
      read.set(clientId, client);
    }
    return client.then((found) => (found?.tenantId === tenantId && found.backchannelLogoutUri ? found : undefined));
  };
}

/** The logouts one event calls for: one per client and session it held, of the event's tenant only. */
async function logoutsOf(deps: PlannerDeps, clientOf: ReturnType<typeof clientReader>, event: CloudEvent): Promise<Delivery[]> {
  const ended = endedSessionsSchema.safeParse(event.data);
  const userId = event.subject;
  if (!ended.success || userId === undefined) return [];
  const tenantId = event.tenantid;
  // The user's grants, and those kept when the user was erased (docs/api.md 17.3): a deletion's grants are gone by now.
  const [live, kept] = await Promise.all([
    deps.store.oauthGrants.listBySubject(tenantId, userId),
    deps.store.oauthGrants.keptForLogout(tenantId, userId),
  ]);
  const grants = new Map<string, LogoutTarget>(kept.map((grant) => [grant.id, grant]));
  for (const grant of live) if (grant.tenantId === tenantId && grant.subject === userId) grants.set(grant.id, grant);
  const held = [...grants.values()].filter((grant) => heldIn(grant, ended.data));
  const deliveries = new Map<string, Delivery>();
  for (const grant of held) {
    const client = await clientOf(tenantId, grant.clientId);
    if (!client) continue;
    const sid = sidOf(grant, client);
    const id = deliveryId(event.id, client.clientId, sid);
    const payload: LogoutPayload = { sub: userId, ...(sid === undefined ? {} : { sid }) };
    deliveries.set(id, {
      id,
      kind: 'backchannel_logout',
      tenantId,
      target: client.clientId,
      payload,
      attempt: 1,
      firstAttemptAt: deps.clock.now(),
    });
  }
  return [...deliveries.values()];
}

/**
 * docs/api.md 17.3: for each event with `data.endedSessions`, one logout delivery per
 * client (of the event's tenant, with a back-channel logout URI) and session it held: the
 * grants of the user made in an ended session (for `all`, in any but the kept one), found
 * through the owner index.
 */
export const backchannelLogoutPlanner: DeliveryPlanner = async (deps, events) => {
  const clientOf = clientReader(deps);
  const planned = await Promise.all(events.map((event) => logoutsOf(deps, clientOf, event)));
  return planned.flat();
};

/**
 * docs/api.md 17.3: the request of one attempt: a logout token (OIDC Back-Channel Logout
 * 1.0 2.4) signed like the client's ID tokens, with a fresh `jti` and a short life, POSTed
 * as a form to the client's back-channel logout URI as it is now. Undefined when the
 * client is gone, is another tenant's, or no longer has a URI: the delivery ends.
 */
export const logoutRequest: RequestMaker = async (deps, delivery) => {
  const payload = logoutPayloadSchema.safeParse(delivery.payload);
  if (delivery.kind !== 'backchannel_logout' || !payload.success) return undefined;
  const client = await deps.store.oauthClients.find(delivery.target);
  if (client?.tenantId !== delivery.tenantId || !client.backchannelLogoutUri) return undefined;
  const now = epochSeconds(deps.clock);
  const { sub, sid } = payload.data;
  const token = signJwt(
    await deps.keys.load(),
    LOGOUT_TOKEN_TYPE,
    {
      iss: deps.config.issuer,
      aud: client.clientId,
      iat: now,
      exp: now + LOGOUT_TOKEN_TTL_SECONDS,
      jti: deps.random.id(),
      sub,
      ...(sid === undefined ? {} : { sid }),
      events: { [BACKCHANNEL_LOGOUT_EVENT]: {} },
    },
    client.idTokenSignedResponseAlg ?? 'ES256',
  );
  return {
    url: client.backchannelLogoutUri,
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ logout_token: token }).toString(),
  };
};
