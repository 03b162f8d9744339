import { Secret } from 'otpauth';
import { renderSVG } from 'uqr';
import { emailAddress } from '../../../http/schemas';
import { accountOf as mfaAccountOf } from '../../../mfa/account';
import { enableMfa, verifyMfa } from '../../../mfa/enrolment';
import { createRecoveryCodes, disableMfa, listMfa } from '../../../mfa/lifecycle';
import { MFA_METHODS } from '../../../mfa/methods';
import * as z from '../../../zod';
import { ActionForm, Field } from '../../form';
import { defineAction, type PageContext, type Section } from '../../section';
import { CONFIRM_ACTIONS, recentSignIn, requireRecent } from '../recent';

/*
 * Two-step verification (docs/api.md 15.2, 4.4, 8.6): the user's methods, TOTP enrolment
 * with a QR code (the otpauth URI, rendered as SVG on the server), SMS and EMAIL, each
 * turned on with a code and off again, and recovery codes shown once. Every change of
 * factors needs a recent sign-in that passed the second factor (12.1).
 */

const SECTION = 'security';
const methodName = (context: PageContext, method: string) => context.t(`accountMfa:method_${method}`);

/** The code of a method being turned on. */
function VerifyForm({ context, method, form }: { context: PageContext; method: string; form?: Parameters<Section['render']>[1] }) {
  const { t } = context;
  return (
    <ActionForm
      context={context}
      section={SECTION}
      action="verify"
      form={form}
      submit={t('accountMfa:verify')}
      label={`${t('accountMfa:verifyTitle')}: ${methodName(context, method)}`}
    >
      <input type="hidden" name="method" value={method} />
      <Field
        action="verify"
        form={form}
        name="code"
        label={`${t('accountMfa:code')} (${methodName(context, method)})`}
        autocomplete="one-time-code"
        inputMode="numeric"
        maxLength={16}
        required
      />
    </ActionForm>
  );
}

/** The page of a TOTP enrolment: the QR code of the otpauth URI, its key as text, and the code that turns it on. */
function TotpPage({ context, otpauthUri, secret }: { context: PageContext; otpauthUri: string; secret: string }) {
  const { t } = context;
  return (
    <section aria-labelledby="totp-title">
      <h2 id="totp-title">{t('accountMfa:addTotp')}</h2>
      <p>{t('accountMfa:scan')}</p>
      {/* uqr's SVG: paths of the code's modules, no text of ours in it. */}
      <div
        class="qr"
        role="img"
        aria-label={t('accountMfa:qrLabel', { account: context.identity.username })}
        dangerouslySetInnerHTML={{ __html: renderSVG(otpauthUri) }}
      />
      <p>{t('accountMfa:manual')}</p>
      <p class="secret" id="totp-secret" data-otpauth={otpauthUri}>
        {secret}
      </p>
      <button type="button" class="secondary" data-copy="totp-secret" data-done={t('console:copied')} hidden>
        {t('console:copy')}
      </button>
      <span id="totp-secret-copied" role="status" />
      <VerifyForm context={context} method="TOTP" />
    </section>
  );
}

export const security: Section = {
  id: SECTION,
  title: 'accountMfa:title',
  order: 20,
  async render(context, form) {
    const confirmation = await recentSignIn(context, SECTION, form, true);
    const { deps, identity, t } = context;
    const { mfa } = await listMfa(deps, mfaAccountOf(identity));
    const active = mfa.methods.filter((method) => method.status === 'active');
    const has = new Set(mfa.methods.map((method) => method.method));
    const content = (
      <>
        <p>{t('accountMfa:intro')}</p>
        {confirmation.view}
        <h2>{t('accountMfa:methods')}</h2>
        {mfa.methods.length === 0 ? <p>{t('accountMfa:noMethods')}</p> : null}
        <ul class="cards">
          {mfa.methods.map((method) => (
            <li>
              <p>
                <strong>{methodName(context, method.method)}</strong>
                {method.destination ? ` ${method.destination}` : ''}: {t(`accountMfa:status_${method.status}`)}
              </p>
              {method.status === 'pending' && method.method !== 'TOTP' ? (
                <VerifyForm context={context} method={method.method} form={form} />
              ) : null}
              <ActionForm
                context={context}
                section={SECTION}
                action="disable"
                submit={t('accountMfa:disable')}
                kind="secondary"
                confirm={t('accountMfa:disableConfirm', { method: methodName(context, method.method) })}
                label={`${t('accountMfa:disable')}: ${methodName(context, method.method)}`}
              >
                <input type="hidden" name="method" value={method.method} />
              </ActionForm>
            </li>
          ))}
        </ul>
        {has.has('TOTP') ? null : (
          <ActionForm context={context} section={SECTION} action="totp" form={form} submit={t('accountMfa:addTotp')}>
            <p class="hint">{t('accountMfa:addTotpHint')}</p>
          </ActionForm>
        )}
        {has.has('SMS') ? null : (
          <ActionForm context={context} section={SECTION} action="sms" form={form} submit={t('accountMfa:addSms')}>
            <Field
              action="sms"
              form={form}
              name="phone"
              type="tel"
              label={t('accountMfa:phone')}
              hint={t('accountMfa:phoneHint')}
              autocomplete="tel"
              maxLength={16}
              required
            />
          </ActionForm>
        )}
        {has.has('EMAIL') ? null : (
          <ActionForm context={context} section={SECTION} action="email" form={form} submit={t('accountMfa:addEmail')}>
            <Field
              action="email"
              form={form}
              name="email"
              type="email"
              label={t('accountMfa:emailAddress')}
              autocomplete="email"
              maxLength={254}
              required
            />
          </ActionForm>
        )}
        {active.length ? (
          <section aria-labelledby="recovery-title">
            <h2 id="recovery-title">{t('accountMfa:recoveryTitle')}</h2>
            <p>{t('accountMfa:recoveryIntro')}</p>
            <p>{t('accountMfa:recoveryLeft', { count: mfa.recoveryCodesRemaining })}</p>
            <ActionForm
              context={context}
              section={SECTION}
              action="recovery-codes"
              form={form}
              submit={t('accountMfa:recoveryGenerate')}
              kind="secondary"
              confirm={t('accountMfa:recoveryConfirm')}
            />
          </section>
        ) : null}
      </>
    );
    return { content, scripts: confirmation.scripts };
  },
  actions: {
    ...CONFIRM_ACTIONS,
    // POST /auth/mfa/enable (4.4) with a secret made here: the page shows its QR code and key.
    totp: defineAction({
      form: z.strictObject({}),
      async run(context) {
        await requireRecent(context, { factors: true });
        const secret = new Secret({ size: 20 }).base32;
        const enabled = await enableMfa(context.deps, mfaAccountOf(context.identity), { method: 'TOTP', secret });
        return { page: <TotpPage context={context} otpauthUri={enabled.otpauthUri ?? ''} secret={secret} /> };
      },
    }),
    // POST /auth/mfa/enable (4.4): a code sent by text message.
    sms: defineAction({
      form: z.strictObject({ phone: z.string().check(z.trim(), z.minLength(1), z.maxLength(16)) }),
      async run(context, { phone }) {
        await requireRecent(context, { factors: true });
        await enableMfa(context.deps, mfaAccountOf(context.identity), { method: 'SMS', secret: phone });
        return { flash: 'accountMfa:codeSent' };
      },
    }),
    // POST /auth/mfa/enable (4.4): a code sent by email.
    email: defineAction({
      form: z.strictObject({ email: emailAddress }),
      async run(context, { email }) {
        await requireRecent(context, { factors: true });
        await enableMfa(context.deps, mfaAccountOf(context.identity), { method: 'EMAIL', secret: email });
        return { flash: 'accountMfa:codeSent' };
      },
    }),
    // POST /auth/mfa/verify (4.5).
    verify: defineAction({
      form: z.strictObject({ method: z.enum(MFA_METHODS), code: z.string().check(z.trim(), z.minLength(1), z.maxLength(16)) }),
      async run(context, input) {
        await verifyMfa(context.deps, mfaAccountOf(context.identity), input, context.identity.sessionId);
        return { flash: 'accountMfa:activated', values: { method: context.t(`accountMfa:method_${input.method}`) } };
      },
    }),
    // POST /auth/mfa/disable (8.6).
    disable: defineAction({
      form: z.strictObject({ method: z.enum(MFA_METHODS) }),
      async run(context, { method }) {
        await requireRecent(context, { factors: true });
        await disableMfa(context.deps, mfaAccountOf(context.identity), method);
        return { flash: 'accountMfa:disabled', values: { method: context.t(`accountMfa:method_${method}`) } };
      },
    }),
    // POST /auth/mfa/recovery-codes (8.6): shown once, in this answer only.
    'recovery-codes': defineAction({
      form: z.strictObject({}),
      async run(context) {
        await requireRecent(context, { factors: true });
        const { codes } = await createRecoveryCodes(context.deps, mfaAccountOf(context.identity));
        const { t } = context;
        return {
          page: (
            <section aria-labelledby="codes-title">
              <h2 id="codes-title">{t('accountMfa:recoveryShown')}</h2>
              <p>{t('accountMfa:recoveryOnce')}</p>
              <ul class="secret-list" id="recovery-codes">
                {codes.map((code) => (
                  <li>{code}</li>
                ))}
              </ul>
              <button type="button" class="secondary" data-copy="recovery-codes" data-done={t('console:copied')} hidden>
                {t('console:copy')}
              </button>
              <span id="recovery-codes-copied" role="status" />
              <p>
                <a class="button" href="/account/security">
                  {t('accountMfa:recoveryDone')}
                </a>
              </p>
            </section>
          ),
        };
      },
    }),
  },
};
