/**
 * A steady mixed load of virtual users: requests leave at a fixed rate whatever the
 * answers do (an open model: a slow server shows as requests in flight, not as a
 * lower rate), in a fixed mix of login, refresh, me and token. Each virtual user is a
 * client that keeps what the API gave it: the sessions it started, for each the last
 * refresh token and access token. A refresh token is single-use and reusing a retired
 * one revokes the session, so a session is never refreshed twice at once.
 */
import { Agent, request } from 'node:http';
import { performance } from 'node:perf_hooks';
import { parseRefreshToken } from '../../lib/sessions/refresh-token';

export const KINDS = ['login', 'refresh', 'me', 'token'] as const;
export type Kind = (typeof KINDS)[number];

/** A session as its client knows it. */
export interface ClientSession {
  id: string;
  userId: string;
  /** The last refresh token the API issued for it, and that token's generation. */
  refreshToken: string;
  generation: number;
  accessToken: string;
  /** A refresh of it is in flight. */
  busy: boolean;
  /** A refresh of it failed: the client no longer knows which token is current. */
  uncertain: boolean;
}

export interface VirtualUser {
  tenantId: string;
  username: string;
  password: string;
  userId: string;
  /** The session its requests use: the one its last login started. */
  current: ClientSession;
}

export interface OAuthClient {
  id: string;
  secret: string;
  scope: string;
}

export interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

const agent = new Agent({ keepAlive: true, maxSockets: 128 });

/** One HTTP request; a transport failure or a 30 s timeout rejects. */
export function send(url: string, method: string, path: string, headers: Record<string, string>, body?: string): Promise<Answer> {
  return new Promise((done, fail) => {
    const target = new URL(path, url);
    const outgoing = request(
      target,
      { method, agent, headers: { ...headers, ...(body === undefined ? {} : { 'content-length': String(Buffer.byteLength(body)) }) } },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () =>
          done({ status: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(chunks).toString('utf8') }),
        );
        response.on('error', fail);
      },
    );
    outgoing.setTimeout(30_000, () => outgoing.destroy(new Error('no answer within 30 s')));
    outgoing.on('error', fail);
    outgoing.end(body);
  });
}

/** Sends JSON, returns the status and the parsed body (untyped: callers check its shape). */
export async function sendJson(
  url: string,
  method: string,
  path: string,
  json: unknown,
  token?: string,
): Promise<{ status: number; body: any }> {
  const headers = {
    ...(json === undefined ? {} : { 'content-type': 'application/json' }),
    ...(token ? { authorization: `Bearer ${token}` } : {}),
  };
  const answer = await send(url, method, path, headers, json === undefined ? undefined : JSON.stringify(json));
  return { status: answer.status, body: answer.body === '' ? undefined : JSON.parse(answer.body) };
}

/** The session a refresh token belongs to and its generation (our token format, lib/sessions/refresh-token.ts). */
export function sessionOf(refreshToken: string): { sessionId: string; generation: number } {
  const parsed = parseRefreshToken(refreshToken);
  if (!parsed) throw new Error('the API issued something that is not a refresh token');
  return { sessionId: parsed.sessionId, generation: parsed.generation };
}

export interface KindStats {
  sent: number;
  /** Answers by status code; transport failures under `error`. */
  statuses: Record<string, number>;
  /** Answers that were what the client expected (status and body). */
  expected: number;
  unexpected: number;
  latenciesMs: number[];
}

export interface LoadResult {
  seconds: number;
  targetRate: number;
  sent: number;
  answered: number;
  /**
   * Refreshes that found every virtual user's session busy (a refresh in flight) and
   * waited for the first to come back, and the longest wait: a slow server shows here.
   */
  delayed: { count: number; maxWaitMs: number };
  /** Refreshes never sent: no session could be refreshed any more (every one uncertain). */
  skipped: number;
  byKind: Record<Kind, KindStats>;
  /** Answers per second of the run, by the second they arrived in. */
  perSecond: number[];
  maxInFlight: number;
  /** The first few unexpected answers, described (no tokens). */
  unexpectedSamples: string[];
  /** Every session any virtual user started during the load, by id. */
  sessions: Map<string, ClientSession>;
}

export interface LoadSpec {
  url: string;
  users: VirtualUser[];
  client: OAuthClient;
  /** Requests per second, all kinds together. */
  rate: number;
  /** Share of each kind (weights). */
  mix: Record<Kind, number>;
  seconds: number;
  /** Called once a second with the elapsed seconds (e.g. to sample memory). */
  onSecond?: (elapsed: number) => void;
}

/** Smooth weighted round robin: the kinds interleaved in proportion to their weights. */
function* interleave(weights: Record<Kind, number>): Generator<Kind> {
  const total = KINDS.reduce((sum, kind) => sum + weights[kind], 0);
  const credit = Object.fromEntries(KINDS.map((kind) => [kind, 0])) as Record<Kind, number>;
  for (;;) {
    let best: Kind = 'me';
    for (const kind of KINDS) {
      credit[kind] += weights[kind];
      if (credit[kind] > credit[best]) best = kind;
    }
    credit[best] -= total;
    yield best;
  }
}

const basic = (id: string, secret: string) =>
  `Basic ${Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`).toString('base64')}`;

function parse(body: string): any {
  try {
    return JSON.parse(body);
  } catch {
    return undefined;
  }
}

export async function runMixedLoad(spec: LoadSpec): Promise<LoadResult> {
  const stats = (): KindStats => ({ sent: 0, statuses: {}, expected: 0, unexpected: 0, latenciesMs: [] });
  const byKind: Record<Kind, KindStats> = { login: stats(), refresh: stats(), me: stats(), token: stats() };
  const sessions = new Map<string, ClientSession>(spec.users.map((user) => [user.current.id, user.current]));
  const perSecond: number[] = [];
  const unexpectedSamples: string[] = [];
  const inFlight = new Set<Promise<void>>();
  let maxInFlight = 0;
  /** When each refresh that is waiting for a free session was due. */
  const waiting: number[] = [];
  const delayed = { count: 0, maxWaitMs: 0 };
  let answered = 0;
  const nextUser = { login: 0, refresh: 0, me: 0 };
  let tokenCalls = 0;
  const started = performance.now();

  const pickUser = (kind: 'login' | 'me') => spec.users[nextUser[kind]++ % spec.users.length] as VirtualUser;
  /** The next user whose current session can be refreshed now, if any. */
  const refreshable = () => {
    for (let tried = 0; tried < spec.users.length; tried++) {
      const user = spec.users[nextUser.refresh++ % spec.users.length] as VirtualUser;
      if (!user.current.busy && !user.current.uncertain) return user;
    }
    return undefined;
  };

  /** Sends one request of `kind`; `check` says whether the answer is what this client expected. */
  function fire(kind: Kind, call: () => Promise<Answer>, check: (answer: Answer) => string | undefined, settle?: (ok: boolean) => void) {
    byKind[kind].sent++;
    const sentAt = performance.now();
    const work = call().then(
      (answer) => {
        const stats = byKind[kind];
        stats.statuses[answer.status] = (stats.statuses[answer.status] ?? 0) + 1;
        stats.latenciesMs.push(performance.now() - sentAt);
        const problem = check(answer);
        if (problem === undefined) stats.expected++;
        else {
          stats.unexpected++;
          if (unexpectedSamples.length < 20) unexpectedSamples.push(`${kind}: ${problem}`);
        }
        settle?.(problem === undefined);
      },
      (error: unknown) => {
        const stats = byKind[kind];
        stats.statuses.error = (stats.statuses.error ?? 0) + 1;
        stats.unexpected++;
        if (unexpectedSamples.length < 20) unexpectedSamples.push(`${kind}: ${error instanceof Error ? error.message : String(error)}`);
        settle?.(false);
      },
    );
    const tracked = work.finally(() => {
      inFlight.delete(tracked);
      answered++;
      const second = Math.floor((performance.now() - started) / 1000);
      perSecond[second] = (perSecond[second] ?? 0) + 1;
    });
    inFlight.add(tracked);
    maxInFlight = Math.max(maxInFlight, inFlight.size);
  }

  const status = (answer: Answer, want: number) =>
    answer.status === want ? undefined : `status ${answer.status}: ${answer.body.slice(0, 200)}`;

  /**
   * Refreshes the current session of the next virtual user whose session is free; if
   * none is, waits (in `waiting`) for the next refresh to come back. `dueAt` is when a
   * waiting refresh was due.
   */
  function refresh(dueAt?: number) {
    const user = refreshable();
    if (!user) {
      if (dueAt === undefined) delayed.count++;
      if (dueAt === undefined) waiting.push(performance.now());
      else waiting.unshift(dueAt);
      return;
    }
    if (dueAt !== undefined) delayed.maxWaitMs = Math.max(delayed.maxWaitMs, performance.now() - dueAt);
    const session = user.current;
    session.busy = true;
    fire(
      'refresh',
      () =>
        send(
          spec.url,
          'POST',
          '/auth/refresh',
          { 'content-type': 'application/json' },
          JSON.stringify({ refreshToken: session.refreshToken }),
        ),
      (answer) => {
        const bad = status(answer, 200);
        if (bad) return bad;
        const data = parse(answer.body)?.data;
        if (data?.user?.id !== user.userId || typeof data.token !== 'string' || typeof data.refreshToken !== 'string')
          return 'refresh answered 200 without the Auth payload of this user';
        const next = sessionOf(data.refreshToken);
        if (next.sessionId !== session.id || next.generation !== session.generation + 1)
          return `refresh moved generation ${session.generation} to ${next.generation}`;
        session.refreshToken = data.refreshToken;
        session.generation = next.generation;
        session.accessToken = data.token;
        return undefined;
      },
      (ok) => {
        session.busy = false;
        if (!ok) session.uncertain = true;
        const dueAt = waiting.shift();
        if (dueAt !== undefined) refresh(dueAt);
      },
    );
  }

  const requests: Record<Kind, () => void> = {
    login: () => {
      const user = pickUser('login');
      fire(
        'login',
        () =>
          send(
            spec.url,
            'POST',
            '/auth/login',
            { 'content-type': 'application/json' },
            JSON.stringify({ username: user.username, password: user.password, tenantId: user.tenantId }),
          ),
        (answer) => {
          const bad = status(answer, 200);
          if (bad) return bad;
          const data = parse(answer.body)?.data;
          if (data?.user?.id !== user.userId || typeof data.token !== 'string' || typeof data.refreshToken !== 'string')
            return 'login answered 200 without the Auth payload of this user';
          const { sessionId, generation } = sessionOf(data.refreshToken);
          if (generation !== 0 || sessions.has(sessionId))
            return `login returned generation ${generation} of ${sessions.has(sessionId) ? 'a known' : 'a new'} session`;
          const session: ClientSession = {
            id: sessionId,
            userId: user.userId,
            refreshToken: data.refreshToken,
            generation,
            accessToken: data.token,
            busy: false,
            uncertain: false,
          };
          sessions.set(sessionId, session);
          user.current = session;
          return undefined;
        },
      );
    },
    refresh: () => refresh(),
    me: () => {
      const user = pickUser('me');
      const session = user.current;
      fire(
        'me',
        () => send(spec.url, 'GET', '/auth/me', { authorization: `Bearer ${session.accessToken}` }),
        (answer) => {
          const bad = status(answer, 200);
          if (bad) return bad;
          const identity = parse(answer.body)?.data?.user;
          if (identity?.userId !== user.userId || identity.sessionId !== session.id) return 'me answered 200 with another identity';
          return undefined;
        },
      );
    },
    token: () => {
      // Half the calls as the seed (JSON, credentials in the body), half the RFC 6749 way (form, HTTP Basic).
      const asForm = tokenCalls++ % 2 === 1;
      const { client } = spec;
      fire(
        'token',
        () =>
          asForm
            ? send(
                spec.url,
                'POST',
                '/oauth2/token',
                { 'content-type': 'application/x-www-form-urlencoded', authorization: basic(client.id, client.secret) },
                new URLSearchParams({ grant_type: 'client_credentials', scope: client.scope }).toString(),
              )
            : send(
                spec.url,
                'POST',
                '/oauth2/token',
                { 'content-type': 'application/json' },
                JSON.stringify({
                  grant_type: 'client_credentials',
                  client_id: client.id,
                  client_secret: client.secret,
                  scope: client.scope,
                }),
              ),
        (answer) => {
          const bad = status(answer, 200);
          if (bad) return bad;
          const parsed = parse(answer.body);
          const tokens = asForm ? parsed : parsed?.data;
          if (typeof tokens?.access_token !== 'string' || tokens.token_type !== 'Bearer' || tokens.scope !== client.scope)
            return 'token answered 200 without a bearer token of the scope asked';
          return undefined;
        },
      );
    },
  };

  // The pacer: request i leaves at started + i / rate. Each tick sends every request
  // that is due, so timer jitter and a busy event loop do not lower the average rate.
  const order = interleave(spec.mix);
  const total = Math.round(spec.rate * spec.seconds);
  let sent = 0;
  let lastSecond = 0;
  await new Promise<void>((done) => {
    const tick = () => {
      const elapsedMs = performance.now() - started;
      const due = Math.min(total, Math.floor((elapsedMs / 1000) * spec.rate) + 1);
      while (sent < due) {
        requests[order.next().value as Kind]();
        sent++;
      }
      const second = Math.floor(elapsedMs / 1000);
      while (lastSecond < second) spec.onSecond?.(++lastSecond);
      if (sent >= total) return done();
      setTimeout(tick, Math.max(1, Math.min(20, (sent / spec.rate) * 1000 - elapsedMs)));
    };
    tick();
  });
  // Answers may free sessions for refreshes still waiting, which are then sent: until none is left.
  while (inFlight.size > 0) await Promise.all([...inFlight]);
  const seconds = (performance.now() - started) / 1000;
  return {
    seconds,
    targetRate: spec.rate,
    sent,
    answered,
    delayed,
    skipped: waiting.length,
    byKind,
    perSecond,
    maxInFlight,
    unexpectedSamples,
    sessions,
  };
}
