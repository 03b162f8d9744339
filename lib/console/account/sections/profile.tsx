import { emailAddress } from '../../../http/schemas';
import { accountOf } from '../../../users/account';
import { changeEmail, verifyEmail } from '../../../users/email';
import * as z from '../../../zod';
import { ActionForm, Field } from '../../form';
import { defineAction, type Section } from '../../section';
import { CONFIRM_ACTIONS, recentSignIn, requireRecent } from '../recent';

/** The profile (docs/api.md 15.2): who is signed in; the email address changed and verified with the emailed code (8.8). */
export const profile: Section = {
  id: 'profile',
  title: 'accountProfile:title',
  order: 0,
  async render(context, form) {
    const confirmation = await recentSignIn(context, 'profile', form);
    const { deps, identity, t } = context;
    const { account } = await accountOf(deps, identity);
    const content = (
      <>
        <dl>
          <dt>{t('accountProfile:username')}</dt>
          <dd>{account.username}</dd>
          <dt>{t('accountProfile:email')}</dt>
          <dd>
            {account.email ?? t('accountProfile:noEmail')}
            {account.email ? ` (${t(account.emailVerified ? 'accountProfile:verified' : 'accountProfile:notVerified')})` : ''}
          </dd>
          <dt>{t('accountProfile:role')}</dt>
          <dd>{account.role}</dd>
        </dl>
        {account.email && !account.emailVerified ? (
          <section aria-labelledby="verify-title">
            <h2 id="verify-title">{t('accountProfile:verifyEmail')}</h2>
            <ActionForm context={context} section="profile" action="verify-email" form={form} submit={t('accountProfile:verify')}>
              <Field
                action="verify-email"
                form={form}
                name="code"
                label={t('accountProfile:code')}
                autocomplete="one-time-code"
                inputMode="numeric"
                maxLength={16}
                required
              />
            </ActionForm>
          </section>
        ) : null}
        <section aria-labelledby="email-title">
          <h2 id="email-title">{t('accountProfile:changeEmail')}</h2>
          {confirmation.view}
          <ActionForm context={context} section="profile" action="email" form={form} submit={t('accountProfile:sendCode')}>
            <Field
              action="email"
              form={form}
              name="email"
              type="email"
              label={t('accountProfile:newEmail')}
              hint={t('accountProfile:newEmailHint')}
              autocomplete="email"
              maxLength={254}
              required
            />
          </ActionForm>
        </section>
      </>
    );
    return { content, scripts: confirmation.scripts };
  },
  actions: {
    ...CONFIRM_ACTIONS,
    // PUT /auth/email (8.8): a recent sign-in, then the code sent.
    email: defineAction({
      form: z.strictObject({ email: emailAddress }),
      async run(context, { email }) {
        await requireRecent(context);
        await changeEmail(context.deps, context.identity, email);
        return { flash: 'accountProfile:codeSent', values: { email } };
      },
    }),
    // POST /auth/email/verify (8.8).
    'verify-email': defineAction({
      form: z.strictObject({ code: z.string().check(z.trim(), z.minLength(1), z.maxLength(16)) }),
      async run(context, { code }) {
        await verifyEmail(context.deps, context.identity, code);
        return { flash: 'accountProfile:emailVerified' };
      },
    }),
  },
};
