import { ValidationError } from '../../errors';
import * as z from '../../zod';
import type { Language } from '../i18n';

/*
 * What the console's listings share (docs/api.md 15.3.1, 15.3.3): filters read from the
 * query of a GET form, where a field left empty arrives as an empty string, and the links
 * of the pages.
 */

/** A field of a form that may be left empty: empty, or only spaces, is absent (no filter, no change). */
export const blankAsAbsent = <S extends z.ZodMiniType>(schema: S) =>
  z.preprocess((value) => (typeof value === 'string' && value.trim() === '' ? undefined : value), z.optional(schema));

/**
 * The page's query parsed by `schema`; anything else (a value no field of the page offers, a
 * name of no filter) is 400 as for the JSON route, shown as the error page.
 */
export function pageQuery<S extends z.ZodMiniType>(schema: S, query: Readonly<Record<string, string | undefined>>): z.output<S> {
  const parsed = schema.safeParse(query);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  throw new ValidationError(issue ? `${issue.path.join('.') || 'query'}: ${issue.message}` : 'Invalid query');
}

/** A path with the filters that are set as its query. */
export function withQuery(path: string, query: Record<string, string | undefined>): string {
  const set = Object.entries(query).filter((entry): entry is [string, string] => entry[1] !== undefined && entry[1] !== '');
  return set.length === 0 ? path : `${path}?${new URLSearchParams(set).toString()}`;
}

/** An instant as people of the page's language read it, in UTC (the trail's clock). */
export const readableTime = (iso: string, language: Language) =>
  `${new Date(iso).toLocaleString(language, { dateStyle: 'medium', timeStyle: 'medium', timeZone: 'UTC' })} UTC`;

/** The links under a listing: on to the next page, back to the first. */
export function Pager({
  first,
  next,
  labels,
}: {
  first?: string | undefined;
  next?: string | undefined;
  labels: { first: string; next: string };
}) {
  if (first === undefined && next === undefined) return null;
  return (
    <p class="pager">
      {first === undefined ? null : (
        <a class="button secondary" href={first}>
          {labels.first}
        </a>
      )}
      {next === undefined ? null : (
        <a class="button secondary" href={next} rel="next">
          {labels.next}
        </a>
      )}
    </p>
  );
}
