import type { Deps } from '../deps';
import { signInOptions } from '../passkeys/options';
import { Layout, Problem } from './pages';

/*
 * The passkey parts of the hosted pages (docs/api.md 11.11). The pages keep working
 * without JavaScript (the password form); the one script below only adds the WebAuthn
 * ceremonies. It is a constant, allowed by its hash (lib/hosted/http.tsx); the ceremony's
 * options reach it as JSON in a `data-options` attribute, which preact escapes.
 */

/**
 * The script of every passkey form: `data-passkey="get"` signs in (the button, and
 * conditional mediation on the username field when the browser offers it),
 * `data-passkey="create"` adds a passkey (named after the form's username field, when it
 * has one: an invitation's new account, docs/api.md 13.1). The credential goes back in the form's hidden
 * `credential` field as its JSON form (WebAuthn Level 3, 5.1 `toJSON()`).
 */
export const PASSKEY_SCRIPT = `'use strict';
(() => {
  const form = document.querySelector('form[data-passkey]');
  if (!form || !window.PublicKeyCredential || !navigator.credentials) return;
  const ceremony = form.dataset.passkey;
  const options = JSON.parse(form.dataset.options);
  const field = form.querySelector('input[name=credential]');
  const button = form.querySelector('button');
  const bytes = (text) => Uint8Array.from(atob(text.replace(/-/g, '+').replace(/_/g, '/')), (c) => c.charCodeAt(0)).buffer;
  const text = (buffer) => btoa(String.fromCharCode(...new Uint8Array(buffer))).replace(/[+]/g, '-').replace(/[/]/g, '_').replace(/=+$/, '');
  const ids = (list) => (list || []).map((item) => ({ ...item, id: bytes(item.id) }));
  const username = form.querySelector('input[name=username]');
  const named = () => (username && username.value ? { name: username.value, displayName: username.value } : {});
  const publicKey = () =>
    ceremony === 'create'
      ? { ...options, challenge: bytes(options.challenge), user: { ...options.user, ...named(), id: bytes(options.user.id) }, excludeCredentials: ids(options.excludeCredentials) }
      : { ...options, challenge: bytes(options.challenge), allowCredentials: ids(options.allowCredentials) };
  const json = (credential) => {
    if (typeof credential.toJSON === 'function') return credential.toJSON();
    const r = credential.response;
    const response = { clientDataJSON: text(r.clientDataJSON) };
    if (r.attestationObject) {
      response.attestationObject = text(r.attestationObject);
      response.transports = r.getTransports ? r.getTransports() : [];
    } else {
      response.authenticatorData = text(r.authenticatorData);
      response.signature = text(r.signature);
      if (r.userHandle) response.userHandle = text(r.userHandle);
    }
    return { id: credential.id, rawId: text(credential.rawId), type: credential.type, response,
      authenticatorAttachment: credential.authenticatorAttachment || undefined, clientExtensionResults: credential.getClientExtensionResults() };
  };
  const send = (credential) => {
    field.value = JSON.stringify(json(credential));
    form.submit();
  };
  let pending;
  const ask = async (mediation) => {
    if (pending) pending.abort();
    const controller = new AbortController();
    pending = controller;
    try {
      const credential = ceremony === 'create'
        ? await navigator.credentials.create({ publicKey: publicKey(), signal: controller.signal })
        : await navigator.credentials.get({ publicKey: publicKey(), mediation, signal: controller.signal });
      if (credential) send(credential);
    } catch (error) {
      if (mediation !== 'conditional' && error.name !== 'AbortError') form.querySelector('[role=status]').textContent = 'No passkey was used. Try again, or use your password.';
    }
  };
  button.addEventListener('click', () => ask('optional'));
  form.hidden = false;
  if (ceremony === 'get' && PublicKeyCredential.isConditionalMediationAvailable)
    PublicKeyCredential.isConditionalMediationAvailable().then((available) => available && ask('conditional'));
})();
`;

/** The passkey part of the sign-in page: hidden until the script shows it (no JavaScript, no passkey). */
export function PasskeySignIn({ options, csrf }: { options: unknown; csrf: string }) {
  return (
    <>
      <form method="post" action="/oauth2/hosted/passkey" data-passkey="get" data-options={JSON.stringify(options)} hidden>
        <input type="hidden" name="csrf" value={csrf} />
        <input type="hidden" name="credential" value="" />
        <p role="status" />
        <button type="button" class="secondary">
          Sign in with a passkey
        </button>
      </form>
      <script dangerouslySetInnerHTML={{ __html: PASSKEY_SCRIPT }} />
    </>
  );
}

/**
 * The passkey part of a sign-in page (docs/api.md 11.11): a fresh challenge of the
 * tenant (docs/api.md 12.5, discoverable credentials), and the script the page's CSP allows.
 * Without the WebAuthn library: the password door's functions render this page too.
 */
export async function passkeySignIn(deps: Pick<Deps, 'config' | 'clock' | 'random' | 'store'>, tenantId: string, csrf: string) {
  const options = await signInOptions(deps, tenantId);
  return { passkey: <PasskeySignIn options={options} csrf={csrf} />, scripts: [PASSKEY_SCRIPT] };
}

/** A passkey as the passkeys page lists it (docs/api.md 12's view). */
export interface ListedPasskey {
  id: string;
  name: string;
  /** ISO 8601. */
  createdAt: string;
  lastUsedAt: string | null;
}

export interface PasskeysProps {
  tenant: string;
  username: string;
  passkeys: ListedPasskey[];
  /** The creation options; absent when this sign-in may not add one. */
  options?: unknown;
  /** Why this sign-in may not add a passkey: not recent enough, or without the user's second factor. */
  refused?: 'not-recent' | 'second-factor' | undefined;
  csrf: string;
  /** How recent a sign-in must be to add a passkey, in minutes. */
  recentMinutes: number;
  error?: string | undefined;
}

const day = (iso: string) => iso.slice(0, 10);

/** GET /oauth2/hosted/passkeys (docs/api.md 11.11): the signed-in user's passkeys, and a button to add one. */
export function PasskeysPage({ tenant, username, passkeys, options, refused, csrf, recentMinutes, error }: PasskeysProps) {
  return (
    <Layout title="Passkeys" tenant={tenant}>
      <p>
        Signed in as <strong>{username}</strong>
      </p>
      <Problem message={error} />
      {passkeys.length === 0 ? (
        <p>You have no passkeys yet.</p>
      ) : (
        <ul>
          {passkeys.map((passkey) => (
            <li data-passkey-id={passkey.id}>
              {passkey.name} (added {day(passkey.createdAt)}
              {passkey.lastUsedAt ? `, last used ${day(passkey.lastUsedAt)}` : ''})
            </li>
          ))}
        </ul>
      )}
      {options === undefined ? (
        refused === 'second-factor' ? (
          <p>To add a passkey, sign in again with your second factor: this sign-in used your password alone.</p>
        ) : (
          <p>To add a passkey, sign in again: your last sign-in was more than {recentMinutes} minutes ago.</p>
        )
      ) : (
        <>
          <noscript>
            <p>Adding a passkey needs JavaScript.</p>
          </noscript>
          <form method="post" action="/oauth2/hosted/passkeys" data-passkey="create" data-options={JSON.stringify(options)} hidden>
            <input type="hidden" name="csrf" value={csrf} />
            <input type="hidden" name="credential" value="" />
            <label for="name">Name (optional)</label>
            <input id="name" name="name" autocomplete="off" maxLength={64} />
            <p role="status" />
            <button type="button">Add a passkey</button>
          </form>
          <script dangerouslySetInnerHTML={{ __html: PASSKEY_SCRIPT }} />
        </>
      )}
    </Layout>
  );
}
