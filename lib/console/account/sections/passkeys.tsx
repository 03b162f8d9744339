import { credentialField } from '../../../hosted/passkey-flow';
import { PASSKEY_SCRIPT } from '../../../hosted/passkey-pages';
import { mayChangeFactors } from '../../../mfa/step-up';
import { listPasskeys, passkeyRegistrationOptions, registerPasskey, removePasskey } from '../../../passkeys/ceremonies';
import { isRecentAuthentication } from '../../../sessions/recent-auth';
import * as z from '../../../zod';
import { formatTime } from '../../dates';
import { ActionForm, Field } from '../../form';
import { defineAction, type Section } from '../../section';
import { CONFIRM_ACTIONS, recentSignIn, requireRecent } from '../recent';

/**
 * Passkeys (docs/api.md 15.2, 12): the user's list, one added with the WebAuthn ceremony
 * (the hosted pages' script, allowed by its hash; adding needs JavaScript, the rest does
 * not) after a recent sign-in that passed the second factor, one removed after a recent
 * sign-in.
 */
export const passkeys: Section = {
  id: 'passkeys',
  title: 'accountPasskeys:title',
  order: 30,
  async render(context, form) {
    const confirmation = await recentSignIn(context, 'passkeys', form, true);
    const { deps, identity, t, language } = context;
    const listed = await listPasskeys(deps, identity);
    const canAdd = isRecentAuthentication(deps, identity) && (await mayChangeFactors(deps, identity));
    const options = canAdd ? await passkeyRegistrationOptions(deps, identity) : undefined;
    const content = (
      <>
        <p>{t('accountPasskeys:intro')}</p>
        {listed.length === 0 ? <p>{t('accountPasskeys:none')}</p> : null}
        <ul class="cards">
          {listed.map((passkey) => (
            <li>
              <p>
                <strong>{passkey.name}</strong>
              </p>
              <dl>
                <dt>{t('accountPasskeys:created')}</dt>
                <dd>{formatTime(passkey.createdAt, language)}</dd>
                <dt>{t('accountPasskeys:lastUsed')}</dt>
                <dd>{passkey.lastUsedAt ? formatTime(passkey.lastUsedAt, language) : t('accountPasskeys:never')}</dd>
              </dl>
              <ActionForm
                context={context}
                section="passkeys"
                action="remove"
                submit={t('accountPasskeys:remove')}
                kind="secondary"
                confirm={t('accountPasskeys:removeConfirm', { name: passkey.name })}
                label={`${t('accountPasskeys:remove')}: ${passkey.name}`}
              >
                <input type="hidden" name="id" value={passkey.id} />
              </ActionForm>
            </li>
          ))}
        </ul>
        <h2>{t('accountPasskeys:add')}</h2>
        {confirmation.view}
        {options ? (
          <>
            <noscript>
              <p>{t('accountPasskeys:needsScript')}</p>
            </noscript>
            <ActionForm
              context={context}
              section="passkeys"
              action="add"
              form={form}
              attributes={{ 'data-passkey': 'create', 'data-options': JSON.stringify(options), hidden: true }}
            >
              <input type="hidden" name="credential" value="" />
              <Field
                action="add"
                form={form}
                name="name"
                label={t('accountPasskeys:addName')}
                hint={t('accountPasskeys:addNameHint')}
                autocomplete="off"
                maxLength={64}
              />
              <p role="status" />
              <button type="button">{t('accountPasskeys:add')}</button>
            </ActionForm>
          </>
        ) : null}
      </>
    );
    return { content, scripts: options ? [PASSKEY_SCRIPT] : confirmation.scripts };
  },
  actions: {
    ...CONFIRM_ACTIONS,
    // POST /auth/passkeys/registration (12.2).
    add: defineAction({
      form: z.strictObject({ credential: credentialField, name: z.optional(z.string().check(z.maxLength(64))) }),
      async run(context, { credential, name }) {
        await requireRecent(context, { factors: true });
        await registerPasskey(context.deps, context.identity, credential, name || undefined);
        return { flash: 'accountPasskeys:added' };
      },
    }),
    // DELETE /auth/passkeys/{id} (12.4).
    remove: defineAction({
      form: z.strictObject({ id: z.string().check(z.minLength(1), z.maxLength(128)) }),
      async run(context, { id }) {
        await requireRecent(context);
        await removePasskey(context.deps, context.identity, id);
        return { flash: 'accountPasskeys:removed' };
      },
    }),
  },
};
