import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { constantEquals } from '../crypto/constant-equals';
import type { Deps } from '../deps';
import { AppError, UnauthorizedError } from '../errors';
import type { Reply } from '../http/reply';
import { authorizeFactorChange, mayChangeFactors } from '../mfa/step-up';
import { listPasskeys, passkeyRegistrationOptions, registerPasskey, verifyPasskeySignIn } from '../passkeys/ceremonies';
import { isRecentAuthentication, requireRecentAuthentication } from '../sessions/recent-auth';
import type { Session } from '../sessions/session';
import type { User } from '../users/user';
import * as z from '../zod';
import { browserSessionOfCookie, SESSION_COOKIE } from './browser-session';
import { browserSignIn, clientName, type HostedDeps, postedInteraction, signedIn } from './flow';
import { browserRedirect, checkOrigin, cookiesOf, crossSite, page } from './http';
import type { Interaction } from './interaction';
import { SignInPage } from './pages';
import { PASSKEY_SCRIPT, PasskeysPage, passkeySignIn } from './passkey-pages';
import { tenantName } from './tenant-name';

/*
 * Passkeys on the hosted pages (docs/api.md 11.11): the sign-in page's passkey, posted
 * to POST /oauth2/hosted/passkey, and the page where a signed-in browser adds one. The
 * ceremonies are lib/passkeys/ceremonies.ts's, as for the JSON API (docs/api.md 12); the
 * interaction, the browser session and the code are lib/hosted/flow.tsx's.
 */

export type PasskeyHostedDeps = HostedDeps & Pick<Deps, 'config' | 'clock' | 'random' | 'log' | 'store'>;
type Result = Reply;

/** The page where a signed-in browser adds a passkey. */
export const PASSKEYS_PAGE_PATH = '/oauth2/hosted/passkeys';

/** The credential field: the JSON of a PublicKeyCredential; what does not parse is left for the ceremony to refuse. */
export const credentialField = z.pipe(
  z.string().check(z.minLength(1), z.maxLength(6000)),
  z.transform((text): unknown => {
    try {
      return JSON.parse(text);
    } catch {
      return undefined;
    }
  }),
);

export const passkeySignInForm = z.strictObject({
  csrf: z.string().check(z.minLength(1), z.maxLength(128)),
  credential: credentialField,
});

/**
 * POST /oauth2/hosted/passkey (docs/api.md 11.11): the assertion of the sign-in page's
 * challenge, for the interaction's tenant. A passkey proves possession and user
 * verification at once: no second-factor page. A refused one shows the sign-in page again
 * with its 401 `Invalid passkey` (and a new challenge).
 */
export async function submitPasskeySignIn(
  deps: PasskeyHostedDeps,
  event: APIGatewayProxyEventV2,
  form: z.output<typeof passkeySignInForm>,
): Promise<Result> {
  const found = await postedInteraction(deps, event, form.csrf, 'sign_in');
  const { interaction } = found;
  let proven: Awaited<ReturnType<typeof verifyPasskeySignIn>>;
  // The ceremony refuses and audits a bad assertion; the sign-in pipeline takes the passkey as the first factor.
  try {
    proven = await verifyPasskeySignIn(deps, {
      tenantId: interaction.tenantId,
      credential: form.credential,
      sourceIp: event.requestContext?.http?.sourceIp,
    });
  } catch (error) {
    if (!(error instanceof AppError) || (error.statusCode !== 401 && error.statusCode !== 429)) throw error;
    return signInAgain(deps, found, form.csrf, error);
  }
  const { user, amr, passkeyId } = proven;
  const signed = await browserSignIn(deps, event, interaction, { firstFactor: { kind: 'passkey', user, amr, passkeyId } });
  return signedIn(deps, found, signed, form.csrf);
}

async function signInAgain(
  deps: PasskeyHostedDeps,
  found: { interaction: Interaction; client: Parameters<typeof clientName>[0] | undefined },
  csrf: string,
  error: AppError,
): Promise<Result> {
  const { interaction, client } = found;
  const { passkey, scripts } = await passkeySignIn(deps, interaction.tenantId, csrf);
  const content = (
    <SignInPage
      tenant={await tenantName(deps, interaction.tenantId)}
      clientName={client && clientName(client)}
      error={error.message}
      csrf={csrf}
      passkey={passkey}
    />
  );
  return page(error.statusCode, content, { redirectUri: interaction.request?.redirect_uri, headers: error.headers, scripts });
}

/** The browser's session, outside any interaction; none (or a dead one) is 401 `Unauthorized`. */
async function signedInBrowser(deps: PasskeyHostedDeps, event: APIGatewayProxyEventV2) {
  const current = await browserSessionOfCookie(deps, cookiesOf(event).get(SESSION_COOKIE));
  if (!current) throw new UnauthorizedError('Unauthorized');
  return current;
}

const accountOf = (user: User, session: Session) => ({
  tenantId: user.tenantId,
  userId: user.id,
  username: user.username,
  sessionId: session.id,
});
const authTimeOf = (session: Session) => ({ authTime: session.authTime ?? session.createdAt });
const changerOf = (user: User, session: Session) => ({ tenantId: user.tenantId, userId: user.id, amr: session.amr });

/**
 * Why the page offers no new passkey, if it does not: the sign-in is not recent (docs/api.md
 * 8.1), or the user has MFA and this sign-in did not pass it (docs/api.md 12.1).
 */
async function addingRefused(deps: PasskeyHostedDeps, current: { user: User; session: Session }) {
  if (!isRecentAuthentication(deps, authTimeOf(current.session))) return 'not-recent' as const;
  return (await mayChangeFactors(deps, changerOf(current.user, current.session))) ? undefined : ('second-factor' as const);
}

/** The passkeys page of a signed-in browser: its list, and the creation options when the sign-in is recent. */
async function passkeysPage(
  deps: PasskeyHostedDeps,
  current: { user: User; session: Session; csrf: string },
  status = 200,
  error?: AppError,
): Promise<Result> {
  const account = accountOf(current.user, current.session);
  const passkeys = await listPasskeys(deps, account);
  const refused = await addingRefused(deps, current);
  const options = refused === undefined ? await passkeyRegistrationOptions(deps, account) : undefined;
  const content = (
    <PasskeysPage
      tenant={await tenantName(deps, current.user.tenantId)}
      username={current.user.username}
      passkeys={passkeys}
      options={options}
      refused={refused}
      csrf={current.csrf}
      recentMinutes={Math.floor(deps.config.reauthMaxAgeSeconds / 60)}
      error={error?.message}
    />
  );
  return page(status, content, { scripts: options === undefined ? [] : [PASSKEY_SCRIPT], ...(error ? { headers: error.headers } : {}) });
}

/**
 * GET /oauth2/hosted/passkeys (docs/api.md 11.11): the signed-in browser's passkeys and,
 * when its sign-in is recent (`REAUTH_MAX_AGE_SECONDS`, docs/api.md 8.1) and passed the
 * user's second factor if they have one (docs/api.md 12.1), a button to add one.
 */
export async function showPasskeys(deps: PasskeyHostedDeps, event: APIGatewayProxyEventV2): Promise<Result> {
  return passkeysPage(deps, await signedInBrowser(deps, event));
}

export const addPasskeyForm = z.strictObject({
  csrf: z.string().check(z.minLength(1), z.maxLength(128)),
  credential: credentialField,
  name: z.optional(z.string().check(z.maxLength(64))),
});

/**
 * POST /oauth2/hosted/passkeys (docs/api.md 11.11): the attestation of the page's
 * challenge, from our origin, with the session's CSRF token, in a session whose sign-in is
 * recent and, when the user has MFA, passed it (else the page again, 403 `Permission
 * denied`); then back to the page (303). A refused credential shows the page again with
 * the ceremony's failure.
 */
export async function submitPasskey(
  deps: PasskeyHostedDeps,
  event: APIGatewayProxyEventV2,
  form: z.output<typeof addPasskeyForm>,
): Promise<Result> {
  checkOrigin(event, deps.config.issuer);
  const current = await signedInBrowser(deps, event);
  if (!constantEquals(form.csrf, current.csrf)) throw crossSite();
  requireRecentAuthentication(deps, authTimeOf(current.session));
  try {
    await authorizeFactorChange(deps, changerOf(current.user, current.session));
    await registerPasskey(deps, accountOf(current.user, current.session), form.credential, form.name || undefined);
  } catch (error) {
    if (!(error instanceof AppError) || error.statusCode >= 500) throw error;
    return passkeysPage(deps, current, error.statusCode, error);
  }
  return browserRedirect(`${new URL(deps.config.issuer).origin}${PASSKEYS_PAGE_PATH}`, { afterForm: true });
}
