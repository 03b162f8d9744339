import { Layout, Problem } from './pages';
import { PASSKEY_SCRIPT } from './passkey-pages';

/*
 * The acceptance page of an invitation (docs/api.md 13.1): a username and a password,
 * posted back to the link's own path. It works without JavaScript.
 */

export interface AcceptInvitationProps {
  tenant: string;
  /** The link's path (`/invitations/{token}`): the form posts back to it. */
  action: string;
  email: string;
  role: string;
  username: string;
  error?: string | undefined;
  /** The creation options of the account's first passkey (docs/api.md 13.1): the passkey form, shown by its script. */
  passkeyOptions?: unknown;
}

export function AcceptInvitationPage({ tenant, action, email, role, username, error, passkeyOptions }: AcceptInvitationProps) {
  return (
    <Layout title="Accept your invitation" tenant={tenant}>
      <p>
        You are invited to join {tenant} as {role}, with the email address <strong>{email}</strong>.
      </p>
      <Problem message={error} />
      <form method="post" action={action}>
        <label for="username">Username</label>
        <input id="username" name="username" autocomplete="username" required maxLength={128} value={username} />
        <label for="password">Password</label>
        <input id="password" name="password" type="password" autocomplete="new-password" required minLength={6} maxLength={128} />
        <p>At least 6 characters; a common password is refused.</p>
        <button type="submit">Create my account</button>
      </form>
      {passkeyOptions === undefined ? null : (
        <>
          <form method="post" action={action} data-passkey="create" data-options={JSON.stringify(passkeyOptions)} hidden>
            <h2>Or use a passkey</h2>
            <label for="passkey-username">Username</label>
            <input id="passkey-username" name="username" autocomplete="username" required maxLength={128} value={username} />
            <input type="hidden" name="credential" value="" />
            <p role="status" />
            <button type="button" class="secondary">
              Create my account with a passkey
            </button>
          </form>
          <script dangerouslySetInnerHTML={{ __html: PASSKEY_SCRIPT }} />
        </>
      )}
    </Layout>
  );
}

/** A link that was used, revoked, or expired (answered with status 400). */
export function InvalidInvitationPage() {
  return (
    <Layout title="This invitation cannot be used">
      <p class="error" role="alert">
        Invalid invitation: this link was already used, was revoked, or has expired.
      </p>
      <p>Ask the person who invited you to send a new invitation.</p>
    </Layout>
  );
}

/** The page after the acceptance: the browser is signed in (docs/api.md 13.1). */
export function InvitationAcceptedPage({ tenant, username, passkeysPath }: { tenant: string; username: string; passkeysPath: string }) {
  return (
    <Layout title="You are signed in" tenant={tenant}>
      <p>
        Your account <strong>{username}</strong> is ready, and this browser is signed in to {tenant}.
      </p>
      <p>
        <a href={passkeysPath}>Add a passkey</a> to sign in without your password next time.
      </p>
      <p>You can now open the apps of {tenant}, or close this page.</p>
    </Layout>
  );
}

/**
 * The acceptance page of an address whose organization signs it in (docs/api.md 14.1):
 * a username only; the account gets no password or passkey of ours.
 */
export function OrganizationInvitationPage({
  tenant,
  action,
  email,
  role,
  username,
  error,
}: Omit<AcceptInvitationProps, 'passkeyOptions'>) {
  return (
    <Layout title="Accept your invitation" tenant={tenant}>
      <p>
        You are invited to join {tenant} as {role}, with the email address <strong>{email}</strong>.
      </p>
      <p>Your organization signs you in: you will not need a password here.</p>
      <Problem message={error} />
      <form method="post" action={action}>
        <label for="username">Username</label>
        <input id="username" name="username" autocomplete="username" required maxLength={128} value={username} />
        <button type="submit">Create my account</button>
      </form>
    </Layout>
  );
}

/** The page after an organization's invitee accepted: the account is ready; they sign in through their organization. */
export function OrganizationAccountReadyPage({ tenant, username }: { tenant: string; username: string }) {
  return (
    <Layout title="Your account is ready" tenant={tenant}>
      <p>
        Your account <strong>{username}</strong> is ready.
      </p>
      <p>Open the apps of {tenant} and sign in with your organization.</p>
    </Layout>
  );
}
