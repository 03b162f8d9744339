import { describe, expect, it } from 'vitest';
import { LANGUAGES, loadedCatalogues, translator } from '../../../lib/console/i18n';

/** Every message of a catalogue by its dotted key, with its text. */
function flatten(messages: object, prefix = ''): Map<string, string> {
  const flat = new Map<string, string>();
  for (const [key, value] of Object.entries(messages)) {
    const path = prefix ? `${prefix}.${key}` : key;
    if (typeof value === 'string') flat.set(path, value);
    else for (const [inner, text] of flatten(value as object, path)) flat.set(inner, text);
  }
  return flat;
}

/** The interpolation variables of a message (`{{name}}`), sorted. */
const variables = (text: string) => [...text.matchAll(/\{\{\s*(\w+)[^}]*\}\}/g)].map((match) => match[1]).sort();

/** A plural's forms (`_one`, `_other`) count as one key: languages have different plural forms. */
const withoutPlural = (key: string) => key.replace(/_(zero|one|two|few|many|other)$/, '');

describe('the pages’ message catalogues (docs/api.md 15.1)', () => {
  const catalogues = loadedCatalogues();
  const english = flatten(catalogues.en);

  it.each(LANGUAGES.filter((language) => language !== 'en'))(
    'has every English key in %s and no other, with the same variables',
    (language) => {
      const other = flatten(catalogues[language]);
      expect([...new Set([...other.keys()].map(withoutPlural))].sort()).toEqual(
        [...new Set([...english.keys()].map(withoutPlural))].sort(),
      );
      for (const [key, text] of english) {
        const translated = other.get(key) ?? other.get(`${withoutPlural(key)}_other`) ?? '';
        expect(variables(translated), `${language} ${key}`).toEqual(variables(text));
      }
    },
  );

  it('has no empty message', () => {
    for (const language of LANGUAGES)
      for (const [key, text] of flatten(catalogues[language])) expect(text.trim(), `${language} ${key}`).not.toBe('');
  });

  it('translates with values and never escapes them (preact does)', () => {
    expect(translator('de')('console:signedInAs', { username: '<b>&' })).toBe('Angemeldet als <b>&');
    expect(translator('en')('console:problemCount', { count: 2 })).toBe('Fix the 2 fields below.');
    expect(translator('de')('console:problemCount', { count: 1 })).toBe('Korrigieren Sie das Feld unten.');
  });
});
