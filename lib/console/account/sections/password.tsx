import { changePassword } from '../../../users/password-change';
import * as z from '../../../zod';
import { ActionForm, Field } from '../../form';
import { defineAction, type Section } from '../../section';

/** The password change (docs/api.md 15.2, 8.2): the current password and the new one, as POST /auth/password/change. */
export const password: Section = {
  id: 'password',
  title: 'accountPassword:title',
  order: 10,
  async render(context, form) {
    const { t } = context;
    return (
      <>
        <p>{t('accountPassword:intro')}</p>
        <ActionForm context={context} section="password" action="change" form={form} submit={t('accountPassword:change')}>
          <Field
            action="change"
            form={form}
            name="currentPassword"
            type="password"
            label={t('accountPassword:current')}
            autocomplete="current-password"
            maxLength={1024}
            required
          />
          <Field
            action="change"
            form={form}
            name="newPassword"
            type="password"
            label={t('accountPassword:new')}
            hint={t('accountPassword:newHint')}
            autocomplete="new-password"
            maxLength={128}
            required
          />
        </ActionForm>
      </>
    );
  },
  actions: {
    change: defineAction({
      // The JSON route's rules (functions/change-password.ts).
      form: z.strictObject({
        currentPassword: z.string().check(z.minLength(1), z.maxLength(1024)),
        newPassword: z.string().check(z.minLength(6), z.maxLength(128)),
      }),
      async run(context, input) {
        await changePassword(context.deps, context.identity, input);
        return { flash: 'accountPassword:changed' };
      },
    }),
  },
};
