import { newShop } from '../../../admin/schemas';
import { createShop, listShops } from '../../../admin/shops';
import { ActionForm, Field } from '../../form';
import { defineAction, type Section } from '../../section';

/** docs/api.md 15.3.5: the tenant's shops, and adding one (POST /admin/shops's rules, docs/api.md 9.7). */
export const shopsSection: Section = {
  id: 'shops',
  title: 'adminApps:shops.title',
  order: 40,
  async render(context, form) {
    const { t } = context;
    const shops = await listShops(context.deps, context.identity);
    return (
      <>
        <p>{t('adminApps:shops.intro')}</p>
        {shops.length === 0 ? (
          <p>{t('adminApps:shops.none')}</p>
        ) : (
          <table>
            <thead>
              <tr>
                <th scope="col">{t('adminApps:shops.shopId')}</th>
                <th scope="col">{t('adminApps:shops.name')}</th>
                <th scope="col">{t('adminApps:common.created')}</th>
              </tr>
            </thead>
            <tbody>
              {shops.map((shop) => (
                <tr>
                  <td>
                    <code>{shop.shopId}</code>
                  </td>
                  <td>{shop.name}</td>
                  <td>{shop.createdAt.slice(0, 10)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
        <h2>{t('adminApps:shops.add')}</h2>
        <ActionForm context={context} section="shops" action="create" form={form} submit={t('adminApps:shops.submit')}>
          <Field
            action="create"
            name="shopId"
            label={t('adminApps:shops.shopId')}
            hint={t('adminApps:shops.shopIdHint')}
            form={form}
            required
          />
          <Field action="create" name="name" label={t('adminApps:shops.name')} form={form} required maxLength={100} />
        </ActionForm>
      </>
    );
  },
  actions: {
    create: defineAction({
      form: newShop,
      async run(context, input) {
        const shop = await createShop(context.deps, context.identity, input);
        return { flash: 'adminApps:shops.added', values: { shopId: shop.shopId } };
      },
    }),
  },
};
