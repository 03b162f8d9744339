import type { Area } from '../frame';
import type { Section } from '../section';
import { profile } from './sections/profile';

/** The sections of the account page (docs/api.md 15.2): a file of lib/console/account/sections/ and one line here. */
export const ACCOUNT_SECTIONS: Section[] = [profile];

/** The account page: every signed-in user's own (docs/api.md 15.2). */
export const ACCOUNT_AREA: Area = {
  id: 'account',
  title: 'console:accountTitle',
  sections: ACCOUNT_SECTIONS,
  allows: () => true,
};
