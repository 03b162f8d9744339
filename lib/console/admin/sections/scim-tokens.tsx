import { NotFoundError } from '../../../errors';
import { createScimToken, deleteScimToken, listScimTokens, newScimToken, SCIM_TOKEN_NOT_FOUND } from '../../../scim/tokens';
import * as z from '../../../zod';
import { ActionForm, Field } from '../../form';
import { sectionPath } from '../../paths';
import { defineAction, type PageContext, type Section } from '../../section';
import { ConfirmDeletion, ShownOnce, viewLink } from '../app-parts';

/*
 * docs/api.md 15.3.8: the tenant's SCIM tokens (POST, GET, DELETE /admin/scim-tokens,
 * docs/api.md 13.3): listed by name, created with the token shown once in the answer to
 * the form, deleted after a confirmation page.
 */

const SECTION = 'scim-tokens';
const tokenId = z.string().check(z.minLength(1), z.maxLength(64));

/** The tenant's token of that id, or a 404 page: another tenant's is unknown too. */
async function tokenOf(context: PageContext, id: string) {
  const token = (await listScimTokens(context.deps, context.identity)).find((each) => each.id === id);
  if (!token) throw new NotFoundError(SCIM_TOKEN_NOT_FOUND);
  return token;
}

export const scimTokensSection: Section = {
  id: SECTION,
  title: 'adminApps:scim.title',
  order: 70,
  async render(context, form) {
    const { t } = context;
    // A deletion come back names its token: one that is not the tenant's is the 404 page.
    if (form?.action === 'delete') await tokenOf(context, form.values.id ?? '');
    const removing = context.query.delete;
    if (removing !== undefined) {
      const token = await tokenOf(context, removing);
      return (
        <>
          <h2>{t('adminApps:scim.removeConfirm', { name: token.name })}</h2>
          <ConfirmDeletion
            context={context}
            section={SECTION}
            action="delete"
            target={{ id: token.id }}
            warning={t('adminApps:scim.removeWarning')}
            submit={t('adminApps:scim.removeSubmit')}
            back={sectionPath('admin', SECTION)}
          />
        </>
      );
    }
    const tokens = await listScimTokens(context.deps, context.identity);
    return (
      <>
        <p>{t('adminApps:scim.intro')}</p>
        <dl>
          <dt>{t('adminApps:scim.baseUrl')}</dt>
          <dd>
            <code>{`${context.deps.config.issuer}/scim/v2`}</code>
          </dd>
        </dl>
        {tokens.length === 0 ? (
          <p>{t('adminApps:scim.none')}</p>
        ) : (
          <table>
            <thead>
              <tr>
                <th scope="col">{t('adminApps:scim.name')}</th>
                <th scope="col">{t('adminApps:common.created')}</th>
                <th scope="col">{t('adminApps:common.actions')}</th>
              </tr>
            </thead>
            <tbody>
              {tokens.map((token) => (
                <tr>
                  <td>{token.name}</td>
                  <td>{token.createdAt.slice(0, 10)}</td>
                  <td>
                    <a href={viewLink(SECTION, { delete: token.id })} aria-label={t('adminApps:scim.removeConfirm', { name: token.name })}>
                      {t('adminApps:common.delete')}
                    </a>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
        <h2>{t('adminApps:scim.create')}</h2>
        <ActionForm context={context} section={SECTION} action="create" form={form} submit={t('adminApps:scim.submit')}>
          <Field
            action="create"
            name="name"
            label={t('adminApps:scim.name')}
            hint={t('adminApps:scim.nameHint')}
            form={form}
            required
            maxLength={100}
          />
        </ActionForm>
      </>
    );
  },
  actions: {
    create: defineAction({
      form: newScimToken,
      async run(context, input) {
        const { t } = context;
        const { scimToken, token } = await createScimToken(context.deps, context.identity, input.name);
        return {
          page: (
            <>
              <p>{t('adminApps:scim.createdTitle', { name: scimToken.name })}</p>
              <ShownOnce id="scim-token" label={t('adminApps:scim.tokenLabel')} secret={token} t={t} />
              <p>
                <a href={sectionPath('admin', SECTION)}>{t('adminApps:scim.back')}</a>
              </p>
            </>
          ),
        };
      },
    }),
    delete: defineAction({
      form: z.strictObject({ id: tokenId }),
      async run(context, input) {
        const token = await tokenOf(context, input.id);
        await deleteScimToken(context.deps, context.identity, token.id);
        return { flash: 'adminApps:scim.removed', values: { name: token.name } };
      },
    }),
  },
};
