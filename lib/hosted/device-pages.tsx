import { type FormContext, Layout, Problem, ScopeDecision } from './pages';

/*
 * The device page (docs/api.md 16.4): a signed-in person types the code a shared device
 * shows, checks which app asks for what, and allows or denies it. Forms only, no script.
 */

export interface DeviceCodeProps extends FormContext {
  tenant: string;
  username: string;
  /** The code of the link the device showed (verification_uri_complete), as people read it. */
  userCode?: string | undefined;
  error?: string | undefined;
}

export function DeviceCodePage({ tenant, username, userCode, error, csrf }: DeviceCodeProps) {
  return (
    <Layout title="Connect a device" tenant={tenant}>
      <p>
        You are signed in as <strong>{username}</strong>. Type the code that the device shows.
      </p>
      <Problem message={error} />
      <form method="post" action="/device">
        <input type="hidden" name="csrf" value={csrf} />
        <label for="user_code">Code shown on the device</label>
        <input
          id="user_code"
          name="user_code"
          autocomplete="off"
          autocapitalize="characters"
          spellcheck={false}
          required
          maxLength={32}
          placeholder="XXXX-XXXX"
          value={userCode ?? ''}
        />
        <button type="submit">Continue</button>
      </form>
    </Layout>
  );
}

export interface DeviceConfirmProps extends FormContext {
  tenant: string;
  clientName: string;
  username: string;
  scopes: string[];
  /** As people read it: `XXXX-XXXX`. */
  userCode: string;
}

export function DeviceConfirmPage({ tenant, clientName, username, scopes, userCode, csrf }: DeviceConfirmProps) {
  return (
    <Layout title={`Allow ${clientName}?`} tenant={tenant}>
      <p>
        Check that the device shows the code <strong>{userCode}</strong>. If it does not, choose Deny.
      </p>
      <p>
        {clientName} on that device asks to use your account <strong>{username}</strong> with:
      </p>
      <ScopeDecision scopes={scopes} action="/device" csrf={csrf}>
        <input type="hidden" name="user_code" value={userCode} />
      </ScopeDecision>
    </Layout>
  );
}

export function DeviceDonePage({ tenant, allowed }: { tenant: string; allowed: boolean }) {
  return (
    <Layout title={allowed ? 'Device connected' : 'Device not connected'} tenant={tenant}>
      <p role="status">
        {allowed
          ? 'The device can now use your account. Go back to the device: it continues by itself.'
          : 'The device was not allowed to use your account.'}
      </p>
      <p>
        <a href="/device">Connect another device</a>
      </p>
    </Layout>
  );
}
