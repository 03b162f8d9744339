import type { Area } from '../frame';
import type { Section } from '../section';
import { audit } from './sections/audit';
import { clientsSection } from './sections/clients';
import { connectionsSection } from './sections/connections';
import { invitations } from './sections/invitations';
import { overview } from './sections/overview';
import { scimTokensSection } from './sections/scim-tokens';
import { settings } from './sections/settings';
import { shopsSection } from './sections/shops';
import { staff } from './sections/staff';

/**
 * The sections of the tenant console (docs/api.md 15.3): a new one is a file of
 * lib/console/admin/sections/ and one line here. Its actions' IAM needs join the console
 * functions' roles in serverless.yml (docs/decisions/018-console-frame.md).
 */
export const ADMIN_SECTIONS: Section[] = [
  overview,
  staff,
  invitations,
  shopsSection,
  clientsSection,
  connectionsSection,
  scimTokensSection,
  audit,
  settings,
];

/** The tenant console: ADMINs only (docs/api.md 15.3). */
export const ADMIN_AREA: Area = {
  id: 'admin',
  title: 'console:adminTitle',
  sections: ADMIN_SECTIONS,
  allows: (user) => user.role === 'ADMIN',
};
