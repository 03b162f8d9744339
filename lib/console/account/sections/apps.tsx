import { listGrants, revokeGrant } from '../../../oauth/user-grants';
import * as z from '../../../zod';
import { formatTime } from '../../dates';
import { ActionForm } from '../../form';
import { defineAction, type Section } from '../../section';

/** The authorized apps (docs/api.md 15.2, 8.4): the user's live grants, each revoked on its own. */
export const apps: Section = {
  id: 'apps',
  title: 'accountApps:title',
  order: 50,
  async render(context, form) {
    const { deps, identity, t, language } = context;
    const { grants } = await listGrants(deps, identity);
    if (grants.length === 0) return <p>{t('accountApps:none')}</p>;
    return (
      <>
        <p>{t('accountApps:intro')}</p>
        <ul class="cards">
          {grants.map((grant) => (
            <li>
              <p>
                <strong>{grant.clientName}</strong>
              </p>
              <dl>
                <dt>{t('accountApps:scope')}</dt>
                <dd>{grant.scope}</dd>
                <dt>{t('accountApps:since')}</dt>
                <dd>{formatTime(grant.createdAt, language)}</dd>
                <dt>{t('accountApps:lastUsed')}</dt>
                <dd>{formatTime(grant.lastUsedAt, language)}</dd>
              </dl>
              <ActionForm
                context={context}
                section="apps"
                action="revoke"
                form={form}
                submit={t('accountApps:revoke')}
                kind="secondary"
                confirm={t('accountApps:revokeConfirm', { app: grant.clientName })}
                label={`${t('accountApps:revoke')}: ${grant.clientName}`}
              >
                <input type="hidden" name="grantId" value={grant.id} />
              </ActionForm>
            </li>
          ))}
        </ul>
      </>
    );
  },
  actions: {
    // DELETE /auth/grants/{grantId} (8.4): another user's grant is not found.
    revoke: defineAction({
      form: z.strictObject({ grantId: z.string().check(z.minLength(1), z.maxLength(128)) }),
      async run(context, { grantId }) {
        await revokeGrant(context.deps, context.identity, grantId);
        return { flash: 'accountApps:revoked' };
      },
    }),
  },
};
