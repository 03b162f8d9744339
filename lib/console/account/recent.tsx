import type { VNode } from 'preact';
import { credentialField } from '../../hosted/passkey-flow';
import { PASSKEY_SCRIPT } from '../../hosted/passkey-pages';
import { SECOND_FACTORS } from '../../mfa/methods';
import { authorizeFactorChange, mayChangeFactors } from '../../mfa/step-up';
import { reauthenticateWithPasskey, reauthenticationOptions } from '../../passkeys/reauthenticate';
import { deviceOf } from '../../sessions/device';
import { reauthenticateSession } from '../../sessions/reauthenticate';
import { isRecentAuthentication, requireRecentAuthentication } from '../../sessions/recent-auth';
import * as z from '../../zod';
import { ActionForm, Field } from '../form';
import { defineAction, type FormState, type PageContext } from '../section';

/*
 * A recent sign-in asked on the page (docs/api.md 15.2): the sensitive actions of the
 * account page need a sign-in within REAUTH_MAX_AGE_SECONDS (docs/api.md 8.1) and, for a
 * change of sign-in factors, one that passed the user's second factor (12.1). The page
 * asks for the password (and the second factor) again, through reauthenticate's pipeline,
 * or, when the user has passkeys, for one of them (which passes the second factor too,
 * docs/api.md 12.6), and the person goes on where they were.
 */

/** The checks of a sensitive action, as its JSON twin's route makes them. */
export async function requireRecent(context: PageContext, options: { factors?: boolean } = {}): Promise<void> {
  requireRecentAuthentication(context.deps, context.identity);
  if (options.factors) await authorizeFactorChange(context.deps, context.identity);
}

/** The user's active second factors, when the session must prove it again; undefined when it need not. */
async function confirmationNeeded(context: PageContext, factors: boolean): Promise<string[] | undefined> {
  const { deps, identity } = context;
  const methods = (await deps.store.mfa.list(identity.tenantId, identity.userId)).filter((method) => method.status === 'active');
  const recent = isRecentAuthentication(deps, identity);
  if (recent && (!factors || (await mayChangeFactors(deps, identity)))) return undefined;
  return [...methods.map((method): string => method.method), ...(methods.length ? ['RECOVERY'] : [])];
}

/** The confirmation form: the password, and the second factor when the user has one. */
export const confirmAction = defineAction({
  form: z.strictObject({
    password: z.string().check(z.minLength(1), z.maxLength(1024)),
    method: z.optional(z.enum(SECOND_FACTORS)),
    code: z.optional(z.string().check(z.trim(), z.maxLength(64))),
  }),
  async run(context, input) {
    const request = { password: input.password, mfaMethod: input.method, mfaCode: input.code || undefined };
    await reauthenticateSession(context.deps, context.identity, request, deviceOf(context.event));
    return { flash: 'accountRecent:confirmed' };
  },
});

/**
 * The confirmation with a passkey: the assertion of the page's challenge (bound to the
 * user, their own credentials listed), checked by the sign-in ceremony; a passkey of
 * anyone else is refused (docs/api.md 15.2).
 */
export const confirmPasskeyAction = defineAction({
  form: z.strictObject({ credential: credentialField }),
  async run(context, { credential }) {
    const { deps, identity, event } = context;
    await reauthenticateWithPasskey(deps, identity, credential, {
      sourceIp: event.requestContext?.http?.sourceIp,
      device: deviceOf(event),
    });
    return { flash: 'accountRecent:confirmed' };
  },
});

/** The actions of a section that asks for a recent sign-in. */
export const CONFIRM_ACTIONS = { confirm: confirmAction, 'confirm-passkey': confirmPasskeyAction };

/** What a section shows to confirm it is the user: the forms (null when not needed) and the script of the passkey's. */
export interface Confirmation {
  view: VNode | null;
  scripts: string[];
}

/** The passkey's form: hidden until the script shows it (without JavaScript, the password form alone). */
function PasskeyConfirmation({ context, section, options }: { context: PageContext; section: string; options: unknown }) {
  const { t } = context;
  return (
    <ActionForm
      context={context}
      section={section}
      action="confirm-passkey"
      attributes={{ 'data-passkey': 'get', 'data-options': JSON.stringify(options), hidden: true }}
    >
      <input type="hidden" name="credential" value="" />
      <p role="status" />
      <button type="button" class="secondary">
        {t('accountRecent:usePasskey')}
      </button>
    </ActionForm>
  );
}

/** The forms that confirm it is the user, when the section's actions need it (awaited before rendering). */
export async function recentSignIn(
  context: PageContext,
  section: string,
  form: FormState | undefined,
  factors = false,
): Promise<Confirmation> {
  const methods = await confirmationNeeded(context, factors);
  if (methods === undefined) return { view: null, scripts: [] };
  const { t } = context;
  const options = await reauthenticationOptions(context.deps, context.identity);
  const view = (
    <section aria-labelledby="confirm-title">
      <h2 id="confirm-title">{t('accountRecent:title')}</h2>
      <p>{t('accountRecent:why', { minutes: Math.floor(context.deps.config.reauthMaxAgeSeconds / 60) })}</p>
      <ActionForm context={context} section={section} action="confirm" form={form} submit={t('accountRecent:confirm')}>
        <Field
          action="confirm"
          form={form}
          name="password"
          type="password"
          label={t('accountRecent:password')}
          autocomplete="current-password"
          required
        />
        {methods.length ? (
          <>
            <Field
              action="confirm"
              form={form}
              name="method"
              label={t('accountRecent:method')}
              options={methods.map((method) => ({ value: method, label: t(`accountMfa:method_${method}`) }))}
            />
            <Field
              action="confirm"
              form={form}
              name="code"
              label={t('accountRecent:code')}
              hint={t('accountRecent:codeHint')}
              autocomplete="one-time-code"
              maxLength={64}
            />
          </>
        ) : null}
      </ActionForm>
      {options ? <PasskeyConfirmation context={context} section={section} options={options} /> : null}
    </section>
  );
  return { view, scripts: options ? [PASSKEY_SCRIPT] : [] };
}
