/**
 * A single-page app on the typed client (README, "A typed client and a single-page app"):
 * a token store every tab of the origin shares, one refresh at a time across tabs (Web
 * Locks API), and the MFA login steps. Type-checked with the DOM library
 * (./tsconfig.json, part of `npm test`).
 */
import { type AuthPayload, createIdentityClient, type ErrorCode } from '../index';

const API = 'https://id.example.com';
/** Refresh this long before the access token expires (login answers its lifetime, `expiresIn`). */
const REFRESH_MARGIN_MS = 60_000;

interface Session {
  token: string;
  refreshToken: string;
  /** Epoch milliseconds. */
  expiresAt: number;
}

const isSession = (value: unknown): value is Session =>
  typeof value === 'object' &&
  value !== null &&
  typeof (value as Session).token === 'string' &&
  typeof (value as Session).refreshToken === 'string' &&
  typeof (value as Session).expiresAt === 'number';

/**
 * The session in localStorage, so that every tab uses the same one: a refresh token is
 * rotated at each use and a spent one presented again signs the whole session out
 * (docs/api.md 4.2), so tabs must not each keep and refresh their own. localStorage is
 * readable by any script of the origin: keep third-party scripts out (CSP).
 */
export const tokenStore = {
  key: 'identity.session',
  read(): Session | undefined {
    const stored: unknown = JSON.parse(localStorage.getItem(this.key) ?? 'null');
    return isSession(stored) ? stored : undefined;
  },
  save(payload: AuthPayload): Session {
    const session = { token: payload.token, refreshToken: payload.refreshToken, expiresAt: Date.now() + payload.expiresIn * 1000 };
    localStorage.setItem(this.key, JSON.stringify(session));
    return session;
  },
  clear(): void {
    localStorage.removeItem(this.key);
  },
};

/** For the routes that take no session: login, refresh, the first ADMIN's register. */
const anonymous = createIdentityClient({ baseUrl: API });
/** For everything else: each request carries a token valid for at least REFRESH_MARGIN_MS. */
export const api = createIdentityClient({ baseUrl: API, token: freshToken });

/**
 * The access token, refreshed first when it is about to expire. Only one tab refreshes:
 * the others wait for the lock, then find the session it saved and use that.
 */
export async function freshToken(): Promise<string | undefined> {
  const seen = tokenStore.read();
  if (!seen || seen.expiresAt - Date.now() > REFRESH_MARGIN_MS) return seen?.token;
  return navigator.locks.request('identity.refresh', async () => {
    const current = tokenStore.read();
    if (!current) return undefined;
    // Another tab refreshed while this one waited: the refresh token seen before is spent.
    if (current.refreshToken !== seen.refreshToken) return current.token;
    const refreshed = await anonymous.POST('/auth/refresh', { body: { refreshToken: current.refreshToken } });
    if (refreshed.data) return tokenStore.save(refreshed.data.data).token;
    // A 429 or 503 is worth a later try; a refused refresh token ends the session.
    if (refreshed.error.code === 'INVALID_REFRESH_TOKEN') tokenStore.clear();
    return undefined;
  });
}

/** What the login form shows next. */
export type LoginStep =
  | { step: 'signed-in' }
  | { step: 'ask-code'; methods: string[]; wrongCode: boolean }
  | { step: 'wait'; code: ErrorCode; seconds: number }
  | { step: 'failed'; code: ErrorCode; message: string };

export interface LoginForm {
  username: string;
  password: string;
  tenantId: string;
  mfaCode?: string;
  mfaMethod?: 'TOTP' | 'SMS' | 'EMAIL';
}

/**
 * One login attempt, told by the answer's `code` (never its English text). Without a code,
 * a user with MFA gets `ask-code` with the methods of `X-MFA-Methods` (an SMS or EMAIL code
 * is sent now); the form then calls `logIn` again with `mfaCode` (and `mfaMethod`).
 */
export async function logIn(form: LoginForm): Promise<LoginStep> {
  const { data, error, response } = await anonymous.POST('/auth/login', { body: form });
  if (data) {
    tokenStore.save(data.data);
    return { step: 'signed-in' };
  }
  switch (error.code) {
    case 'MFA_REQUIRED':
    case 'INVALID_MFA_CODE':
      return {
        step: 'ask-code',
        methods: (response.headers.get('X-MFA-Methods') ?? '').split(','),
        wrongCode: error.code === 'INVALID_MFA_CODE',
      };
    case 'LOCKED':
    case 'RATE_LIMITED':
      return { step: 'wait', code: error.code, seconds: Number(response.headers.get('Retry-After') ?? 60) };
    default:
      return { step: 'failed', code: error.code, message: error.error };
  }
}

/**
 * The login form's flow: the password first; when a code is needed, ask the user (the
 * `askCode` dialog, e.g. "Enter the code from your authenticator app") and log in again.
 */
export async function signIn(
  credentials: Omit<LoginForm, 'mfaCode' | 'mfaMethod'>,
  askCode: (methods: string[], wrongCode: boolean) => Promise<{ code: string; method?: LoginForm['mfaMethod'] } | undefined>,
): Promise<LoginStep> {
  let next = await logIn(credentials);
  while (next.step === 'ask-code') {
    const answer = await askCode(next.methods, next.wrongCode);
    if (!answer) return { step: 'failed', code: 'MFA_REQUIRED', message: 'No code given' };
    next = await logIn({ ...credentials, mfaCode: answer.code, ...(answer.method ? { mfaMethod: answer.method } : {}) });
  }
  return next;
}

/** Signs this session out everywhere it is used (every tab: they share the store). */
export async function signOut(): Promise<void> {
  await api.POST('/auth/logout');
  tokenStore.clear();
}

/** Another tab signed in or out: show it here too. */
export function onSessionChange(show: (signedIn: boolean) => void): void {
  window.addEventListener('storage', (event) => {
    if (event.key === tokenStore.key) show(event.newValue !== null);
  });
}

/** The signed-in user, e.g. for the header of the page. */
export async function currentUser() {
  const { data, error } = await api.GET('/auth/me');
  if (error?.code === 'UNAUTHORIZED') tokenStore.clear();
  return data?.data.user;
}
