import type { Language } from './i18n';

/** A time of the pages (ISO 8601) in the page's language, UTC, to the minute. */
export const formatTime = (iso: string, language: Language) =>
  new Date(iso).toLocaleString(language, { dateStyle: 'medium', timeStyle: 'short', timeZone: 'UTC' });
