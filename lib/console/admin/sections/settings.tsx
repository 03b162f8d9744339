import { accentColorSetting, displayNameSetting, logoUrlSetting, readTenant, type TenantView, updateTenant } from '../../../admin/tenant';
import { listConnections } from '../../../federation/connections';
import * as z from '../../../zod';
import { ActionForm, Field } from '../../form';
import { sectionPath } from '../../paths';
import { defineAction, type FormState, type PageContext, type Section } from '../../section';
import { blankAsAbsent } from '../listing';

/*
 * Tenant settings (docs/api.md 15.3.4): the display name, logo and accent colour of the
 * tenant's pages, saved by PATCH /admin/tenant's updateTenant (audited `tenant_updated`), and
 * a note of the connections that require single sign-on (set in the connections section).
 */

const SECTION = 'settings';

/** A field left empty: the setting is removed (null, as PATCH /admin/tenant takes it). */
const removedIfEmpty = <S extends z.ZodMiniType>(schema: S) => z.preprocess((value) => (value === '' ? null : value), z.nullable(schema));

/**
 * PATCH /admin/tenant's body (docs/api.md 9.14) as a form: its fields' own rules. An empty
 * display name keeps the one set (a name cannot be removed).
 */
const settingsForm = z.strictObject({
  displayName: blankAsAbsent(displayNameSetting),
  logoUrl: removedIfEmpty(logoUrlSetting),
  accentColor: removedIfEmpty(accentColorSetting),
});

export const settings: Section = {
  id: SECTION,
  title: 'adminSettings:title',
  order: 90,
  async render(context, form) {
    const [tenant, connections] = await Promise.all([
      readTenant(context.deps, context.identity),
      listConnections(context.deps, context.identity),
    ]);
    const requiring = connections.filter((connection) => connection.ssoRequired);
    return <SettingsPage context={context} tenant={tenant} requiring={requiring} form={form} />;
  },
  actions: {
    save: defineAction({
      form: settingsForm,
      async run({ deps, identity }, input) {
        await updateTenant(deps, identity, input);
        return { flash: 'adminSettings:saved' };
      },
    }),
  },
};

interface SettingsPageProps {
  context: PageContext;
  tenant: TenantView;
  requiring: Awaited<ReturnType<typeof listConnections>>;
  form: FormState | undefined;
}

function SettingsPage({ context, tenant, requiring, form }: SettingsPageProps) {
  const { t } = context;
  return (
    <>
      <section aria-labelledby="settings-branding">
        <h2 id="settings-branding">{t('adminSettings:branding')}</h2>
        <ActionForm context={context} section={SECTION} action="save" form={form} submit={t('adminSettings:save')}>
          <Field
            action="save"
            name="displayName"
            label={t('adminSettings:displayName')}
            hint={t('adminSettings:displayNameHint')}
            form={form}
            value={tenant.displayName ?? ''}
            autocomplete="organization"
            maxLength={100}
          />
          <Field
            action="save"
            name="logoUrl"
            type="url"
            label={t('adminSettings:logoUrl')}
            hint={t('adminSettings:logoUrlHint')}
            form={form}
            value={tenant.logoUrl ?? ''}
            autocomplete="off"
            inputMode="url"
            maxLength={2048}
          />
          <Field
            action="save"
            name="accentColor"
            label={t('adminSettings:accentColor')}
            hint={t('adminSettings:accentColorHint')}
            form={form}
            value={tenant.accentColor ?? ''}
            autocomplete="off"
            maxLength={7}
          />
        </ActionForm>
      </section>
      <section aria-labelledby="settings-sso">
        <h2 id="settings-sso">{t('adminSettings:sso')}</h2>
        {requiring.length === 0 ? (
          <p>{t('adminSettings:ssoNone')}</p>
        ) : (
          <>
            <p>{t('adminSettings:ssoSome')}</p>
            <ul>
              {requiring.map((connection) => (
                <li>
                  {connection.enabled ? connection.name : t('adminSettings:disabledConnection', { name: connection.name })}:{' '}
                  {connection.domains.join(', ')}
                </li>
              ))}
            </ul>
          </>
        )}
        <p>
          <a href={sectionPath('admin', 'connections')}>{t('adminSettings:ssoManage')}</a>
        </p>
      </section>
    </>
  );
}
