import { Layout } from './pages';

/*
 * The pages of RP-initiated logout (docs/api.md 11.12): the confirmation asked before a
 * browser session is ended on a request that does not prove it comes from an app of that
 * session, and the page shown once the browser is signed out.
 */

/** What the RP sent, carried through the confirmation form unchanged. */
export interface LogoutParameters {
  id_token_hint?: string | undefined;
  post_logout_redirect_uri?: string | undefined;
  state?: string | undefined;
  client_id?: string | undefined;
}

export interface ConfirmSignOutProps {
  tenant: string;
  username: string;
  /** The client that asked, when the request named one. */
  clientName?: string | undefined;
  csrf: string;
  parameters: LogoutParameters;
}

export function ConfirmSignOutPage({ tenant, username, clientName, csrf, parameters }: ConfirmSignOutProps) {
  return (
    <Layout title="Sign out?" tenant={tenant}>
      <p>
        {clientName ? `${clientName} asks to sign you out.` : 'An app asks to sign you out.'} You are signed in as{' '}
        <strong>{username}</strong>.
      </p>
      <form method="post" action="/oauth2/logout">
        <input type="hidden" name="csrf" value={csrf} />
        {Object.entries(parameters).map(([name, value]) =>
          value === undefined ? null : <input type="hidden" name={name} value={value} />,
        )}
        <button type="submit">Sign out</button>
      </form>
      <p>To stay signed in, close this page.</p>
    </Layout>
  );
}

/** Where the signed-out page offers to go on: an app's registered post-logout URI, never followed unasked. */
export interface Onward {
  href: string;
  clientName: string;
}

/**
 * The signed-out page; with `onward`, a link to the app's post-logout URI that the user
 * follows or not (RFC 9700 section 4.11.2: no redirect on a request that does not prove
 * which app it is from). The link names the app and the host it leads to.
 */
export function SignedOutPage({ tenant, onward }: { tenant?: string | undefined; onward?: Onward | undefined }) {
  return (
    <Layout title="Signed out" tenant={tenant}>
      <p>You are signed out. You can close this page.</p>
      {onward ? (
        <p>
          <a href={onward.href}>
            Return to {onward.clientName} ({new URL(onward.href).host})
          </a>
        </p>
      ) : null}
    </Layout>
  );
}
