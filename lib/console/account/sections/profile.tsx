import { accountOf } from '../../../users/account';
import type { Section } from '../../section';

/** The account page's first section (docs/api.md 15.2): who is signed in (GET /auth/account). */
export const profile: Section = {
  id: 'profile',
  title: 'accountProfile:title',
  order: 0,
  async render({ deps, identity, t }) {
    const { account } = await accountOf(deps, identity);
    return (
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
    );
  },
  actions: {},
};
