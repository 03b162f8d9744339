import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { cookiesOf, hostCookie } from '../hosted/http';
import { LANGUAGES, type Language } from './i18n';

/** The language preference the switch sets (docs/api.md 15.1): a year, or until changed. */
export const LANGUAGE_COOKIE = '__Host-lang';
const YEAR_SECONDS = 365 * 24 * 3600;

export const isLanguage = (value: string | undefined): value is Language => LANGUAGES.some((language) => language === value);

/**
 * The first supported language of an `Accept-Language` header (RFC 9110 12.5.4), by
 * weight then order; a region (`de-AT`) counts as its language.
 */
function acceptedLanguage(header: string | undefined): Language | undefined {
  const ranked = (header ?? '')
    .split(',')
    .map((part, index) => {
      const [tag = '', ...parameters] = part.trim().split(';');
      const weight = parameters.map((p) => p.trim()).find((p) => p.startsWith('q='));
      const q = weight === undefined ? 1 : Number(weight.slice(2));
      return { language: tag.toLowerCase().split('-')[0], q: Number.isFinite(q) ? q : 0, index };
    })
    .filter((entry) => entry.q > 0)
    .sort((a, b) => b.q - a.q || a.index - b.index);
  return ranked.map((entry) => entry.language).find(isLanguage);
}

/** The language of a page (docs/api.md 15.1): the switch's cookie, else `Accept-Language`, else English. */
export function languageOf(event: APIGatewayProxyEventV2): Language {
  const chosen = cookiesOf(event).get(LANGUAGE_COOKIE);
  if (isLanguage(chosen)) return chosen;
  return acceptedLanguage(event.headers?.['accept-language']) ?? 'en';
}

/** The Set-Cookie of the switch's choice. */
export const languageCookie = (language: Language) => hostCookie(LANGUAGE_COOKIE, language, YEAR_SECONDS);
