import { readTenant } from '../../../admin/tenant';
import type { Section } from '../../section';

/** The console's first page (docs/api.md 15.3): the tenant as its ADMIN reads it (GET /admin/tenant). */
export const overview: Section = {
  id: 'overview',
  title: 'adminOverview:title',
  order: 0,
  async render({ deps, identity, t, language }) {
    const tenant = await readTenant(deps, identity);
    const notSet = t('adminOverview:notSet');
    const created = new Date(tenant.createdAt).toLocaleDateString(language, { dateStyle: 'long', timeZone: 'UTC' });
    return (
      <>
        <p>{t('adminOverview:intro', { tenant: tenant.displayName ?? tenant.id })}</p>
        <dl>
          <dt>{t('adminOverview:tenantId')}</dt>
          <dd>{tenant.id}</dd>
          <dt>{t('adminOverview:displayName')}</dt>
          <dd>{tenant.displayName ?? notSet}</dd>
          <dt>{t('adminOverview:created')}</dt>
          <dd>{created}</dd>
          <dt>{t('adminOverview:defaultShop')}</dt>
          <dd>{tenant.defaultShopId}</dd>
          <dt>{t('adminOverview:logo')}</dt>
          <dd>{tenant.logoUrl ?? notSet}</dd>
          <dt>{t('adminOverview:accentColour')}</dt>
          <dd>{tenant.accentColor ?? notSet}</dd>
        </dl>
      </>
    );
  },
  actions: {},
};
