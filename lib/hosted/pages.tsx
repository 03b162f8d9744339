import type { ComponentChildren, VNode } from 'preact';
import { renderToString } from 'preact-render-to-string';
import { accentStylesheet, type Branding, logoOrigin } from './branding';

/*
 * The hosted pages (docs/api.md 11.7): server-rendered, usable without JavaScript. Every
 * value goes through preact, which escapes text and attributes: no markup is ever built
 * from strings here.
 */

/** The one stylesheet, inline and allowed by its hash (lib/hosted/http.ts). */
export const STYLESHEET = `
*{box-sizing:border-box}
body{margin:0;font:16px/1.5 system-ui,sans-serif;color:#1a1a1a;background:#f4f5f7}
main{max-width:26rem;margin:2rem auto;padding:1.5rem;background:#fff;border-radius:.5rem;box-shadow:0 1px 3px #0002}
header p{margin:0;color:#555;font-size:.9rem}
h1{font-size:1.4rem;margin:.25rem 0 1rem}
label{display:block;font-weight:600;margin:.75rem 0 .25rem}
input,select{width:100%;padding:.6rem;font:inherit;border:1px solid #888;border-radius:.3rem}
button{font:inherit;padding:.6rem 1rem;margin:1rem .5rem 0 0;border-radius:.3rem;border:1px solid var(--accent,#1d4ed8);background:var(--accent,#1d4ed8);color:var(--on-accent,#fff);min-height:2.75rem}
header img{max-height:2.5rem;max-width:10rem;display:block;margin-bottom:.25rem}
button.secondary{background:#fff;color:#1d4ed8}
.error{color:#b00020;font-weight:600}
ul{padding-left:1.2rem}
`;

/** What every form of an interaction carries: its CSRF token (docs/api.md 11.8). */
export interface FormContext {
  csrf: string;
}

/** The tenant's name of a page: its branding's, or the name given. */
export const brandName = (tenant: string | Branding | undefined) => (typeof tenant === 'object' ? tenant.name : tenant);

/**
 * The frame of every hosted page: the tenant at the top (with its logo and accent colour
 * when the page has its branding, docs/api.md 9.14), the title, the content.
 */
export function Layout({
  title,
  tenant,
  refresh,
  children,
}: {
  title: string;
  tenant?: string | Branding | undefined;
  /** A same-origin URL the browser goes on to at once (a meta refresh: no script needed). */
  refresh?: string | undefined;
  children: ComponentChildren;
}) {
  const branding = typeof tenant === 'object' ? tenant : undefined;
  const name = brandName(tenant);
  const accent = accentStylesheet(branding?.accentColor);
  const logo = logoOrigin(branding?.logoUrl) === undefined ? undefined : branding?.logoUrl;
  return (
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        {refresh === undefined ? null : <meta http-equiv="refresh" content={`0;url=${refresh}`} />}
        <title>{title}</title>
        <style>{STYLESHEET}</style>
        {accent === undefined ? null : <style>{accent}</style>}
      </head>
      <body>
        <main>
          <header>
            {logo === undefined ? null : <img src={logo} alt={`${name} logo`} />}
            {name === undefined ? null : <p>{name}</p>}
          </header>
          <h1>{title}</h1>
          {children}
        </main>
      </body>
    </html>
  );
}

/** A failure the page reports, announced to screen readers. */
export const Problem = ({ message }: { message?: string | undefined }) =>
  message ? (
    <p class="error" role="alert">
      {message}
    </p>
  ) : null;

export interface SignInProps extends FormContext {
  tenant: string | Branding;
  /** The client signed in to; none when the sign-in is for a page of ours (docs/api.md 15.1). */
  clientName?: string | undefined;
  username?: string | undefined;
  error?: string | undefined;
  /** The passkey sign-in (lib/hosted/passkey-pages.tsx), when the page offers it (docs/api.md 11.11). */
  passkey?: VNode | undefined;
  /** The tenant has connections (docs/api.md 14.3): the username or email first, the password on the next page. */
  identifierFirst?: boolean | undefined;
}

export function SignInPage({ tenant, clientName, username, error, csrf, passkey, identifierFirst }: SignInProps) {
  return (
    <Layout title="Sign in" tenant={tenant}>
      {clientName === undefined ? null : <p>to continue to {clientName}</p>}
      <Problem message={error} />
      <form method="post" action="/oauth2/hosted/sign-in">
        <input type="hidden" name="csrf" value={csrf} />
        <label for="username">{identifierFirst ? 'Username or email' : 'Username'}</label>
        <input
          id="username"
          name="username"
          autocomplete={passkey ? 'username webauthn' : 'username'}
          required
          maxLength={identifierFirst ? 320 : 128}
          value={username ?? ''}
        />
        {identifierFirst ? null : (
          <>
            <label for="password">Password</label>
            <input id="password" name="password" type="password" autocomplete="current-password" required maxLength={1024} />
          </>
        )}
        <button type="submit">{identifierFirst ? 'Continue' : 'Sign in'}</button>
      </form>
      {passkey}
    </Layout>
  );
}

const METHOD_NAMES: Record<string, string> = {
  TOTP: 'Authenticator app',
  SMS: 'Text message',
  EMAIL: 'Email',
  RECOVERY: 'Recovery code',
};

export interface SecondFactorProps extends FormContext {
  tenant: string | Branding;
  methods: string[];
  method: string;
  error?: string | undefined;
}

export function SecondFactorPage({ tenant, methods, method, error, csrf }: SecondFactorProps) {
  return (
    <Layout title="Verify it is you" tenant={tenant}>
      <Problem message={error} />
      <form method="post" action="/oauth2/hosted/second-factor">
        <input type="hidden" name="csrf" value={csrf} />
        <label for="method">Method</label>
        <select id="method" name="method">
          {methods.map((candidate) => (
            <option value={candidate} selected={candidate === method}>
              {METHOD_NAMES[candidate] ?? candidate}
            </option>
          ))}
        </select>
        <label for="code">Code</label>
        <input id="code" name="code" autocomplete="one-time-code" inputMode="text" maxLength={64} />
        <button type="submit">Verify</button>
      </form>
      <p>Leave the code empty and press Verify to have a new code sent by text message or email.</p>
    </Layout>
  );
}

export interface ConsentProps extends FormContext {
  tenant: string | Branding;
  clientName: string;
  username: string;
  scopes: string[];
}

export function ConsentPage({ tenant, clientName, username, scopes, csrf }: ConsentProps) {
  return (
    <Layout title={`Allow ${clientName}?`} tenant={tenant}>
      <p>
        {clientName} asks to access your account <strong>{username}</strong> with:
      </p>
      <ScopeDecision scopes={scopes} action="/oauth2/hosted/consent" csrf={csrf} />
    </Layout>
  );
}

/** The scopes an app asks for and the form that allows or denies them: consent (docs/api.md 11.10), a device (16.4). */
export function ScopeDecision({
  scopes,
  action,
  csrf,
  children,
}: {
  scopes: string[];
  action: string;
  csrf: string;
  /** Hidden fields of the form besides the CSRF token. */
  children?: ComponentChildren;
}) {
  return (
    <>
      <ul>
        {scopes.map((scope) => (
          <li>{scope}</li>
        ))}
      </ul>
      <form method="post" action={action}>
        <input type="hidden" name="csrf" value={csrf} />
        {children}
        <button type="submit" name="decision" value="allow">
          Allow
        </button>
        <button type="submit" name="decision" value="deny" class="secondary">
          Deny
        </button>
      </form>
    </>
  );
}

/**
 * On to the organization's sign-in (docs/api.md 14.3), after the identifier form: a page,
 * not a redirect, because browsers hold every redirect that follows a form to the form's
 * page's CSP `form-action`, which cannot name an IdP not yet known when the page was made.
 */
export function ContinuePage({ tenant, location }: { tenant: string; location: string }) {
  return (
    <Layout title="Continue to your organization" tenant={tenant} refresh={location}>
      <p>Your organization signs you in with its own sign-in page.</p>
      <p>
        <a href={location}>Continue</a>
      </p>
    </Layout>
  );
}

export function ErrorPage({ message, tenant }: { message: string; tenant?: string | undefined }) {
  return (
    <Layout title="Something went wrong" tenant={tenant}>
      <p class="error" role="alert">
        {message}
      </p>
      <p>Go back to the app you came from and try again.</p>
    </Layout>
  );
}

/** A page as the document it is sent as. */
export function renderPage(page: VNode): string {
  return `<!doctype html>${renderToString(page)}`;
}
