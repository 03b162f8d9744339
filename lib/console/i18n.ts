import { createInstance, type i18n } from 'i18next';
import { CATALOGUES } from './messages';

/** The languages of the pages (docs/api.md 15.1); the first is the default. */
export const LANGUAGES = ['en', 'de'] as const;
export type Language = (typeof LANGUAGES)[number];

/** A translation: a key `namespace:path` (or a path of `console`) with its interpolation values. */
export type Translate = (key: string, values?: Record<string, string | number>) => string;

function resources() {
  const merged: Record<Language, Record<string, object>> = { en: {}, de: {} };
  for (const catalogue of CATALOGUES) for (const language of LANGUAGES) Object.assign(merged[language], catalogue[language]);
  return merged;
}

let instance: i18n | undefined;

/**
 * The one i18next instance of a function, made on first use from the bundled catalogues:
 * synchronous (`initAsync: false`, nothing to load). Values are not HTML-escaped here:
 * preact escapes every text and attribute it renders.
 */
function messages(): i18n {
  if (instance) return instance;
  const made = createInstance();
  const loaded = resources();
  made.init({
    resources: Object.fromEntries(LANGUAGES.map((language) => [language, loaded[language]])),
    lng: 'en',
    fallbackLng: false,
    supportedLngs: [...LANGUAGES],
    ns: Object.keys(loaded.en),
    defaultNS: 'console',
    initAsync: false,
    interpolation: { escapeValue: false },
    returnNull: false,
    returnObjects: false,
  });
  instance = made;
  return made;
}

/** The messages of `language`. */
export function translator(language: Language): Translate {
  const t = messages().getFixedT(language);
  return (key, values) => t(key, values ?? {});
}

/** Whether `key` names a message (a flash cookie names one, docs/api.md 15.1). */
export function isMessageKey(key: string): boolean {
  return messages().exists(key, { lng: 'en' });
}

/** The catalogues as loaded, by language: for the test that English and German have the same keys. */
export function loadedCatalogues(): Record<Language, Record<string, object>> {
  return resources();
}
