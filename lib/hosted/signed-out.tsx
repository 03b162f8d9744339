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

export function SignedOutPage({ tenant }: { tenant?: string | undefined }) {
  return (
    <Layout title="Signed out" tenant={tenant}>
      <p>You are signed out. You can close this page.</p>
    </Layout>
  );
}
