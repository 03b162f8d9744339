import { adminAppsDe } from './admin-apps.de';
import { adminAppsEn } from './admin-apps.en';
import { adminStaffDe } from './admin-staff.de';
import { adminStaffEn } from './admin-staff.en';
import { de } from './de';
import { en } from './en';

/** One catalogue file pair: namespaces of messages by language (docs/api.md 15.1). */
export interface Catalogue {
  en: Record<string, object>;
  de: Record<string, object>;
}

/**
 * Every catalogue of the pages, bundled (no loading at run time). A section of its own
 * area adds its pair here, one line: `{ en: adminStaffEn, de: adminStaffDe },`.
 */
export const CATALOGUES: Catalogue[] = [
  { en, de },
  { en: adminStaffEn, de: adminStaffDe },
  { en: adminAppsEn, de: adminAppsDe },
];
