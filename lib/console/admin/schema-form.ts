import * as z from '../../zod';

/*
 * A console form read off a JSON route's body schema (docs/api.md 15.3.6): one field per
 * property the schema takes, of the kind its type says, and the posted form turned back
 * into the body that schema parses. A property the JSON route gains (a new registration
 * field) appears on the page with a label in the catalogue and nothing else.
 */

/** One field of a form made from a schema. */
export type SchemaField =
  | { name: string; kind: 'text'; required: boolean; multiline: boolean; maxLength: number | undefined }
  | { name: string; kind: 'checkbox' }
  | { name: string; kind: 'select'; required: boolean; options: readonly string[] }
  /** A list of words from a closed set (grant types), separated by spaces in the JSON body: one checkbox each. */
  | { name: string; kind: 'choices'; options: readonly string[] };

/** Strings longer than this are lists of URIs or the like: a text area, one item a line. */
const MULTILINE_ABOVE = 1024;

/** What the form posts: every value a string (lib/http/middlewares/page-form.ts refuses a repeated field). */
export type PostedForm = Record<string, string | string[] | undefined>;

/** The name of one option's checkbox in a `choices` field. */
export const choiceName = (field: string, option: string) => `${field}:${option}`;

/**
 * The smallest `max` of a string schema's checks (zod/mini's schemas have no `maxLength`
 * getter: docs/decisions/035-zod-mini.md).
 */
function maxLengthOf(schema: z.ZodMiniString): number | undefined {
  const maxima = (schema._zod.def.checks ?? [])
    .map((check) => check._zod.def as { check: string; maximum?: unknown })
    .flatMap((def) => (def.check === 'max_length' && typeof def.maximum === 'number' ? [def.maximum] : []));
  return maxima.length ? Math.min(...maxima) : undefined;
}

function describe(name: string, schema: z.ZodMiniType, choices: Readonly<Record<string, readonly string[]>>): SchemaField | undefined {
  const optional = schema instanceof z.ZodMiniOptional;
  const inner = schema instanceof z.ZodMiniOptional ? (schema.def.innerType as z.ZodMiniType) : schema;
  const options = choices[name];
  if (options) return { name, kind: 'choices', options };
  if (inner instanceof z.ZodMiniBoolean) return { name, kind: 'checkbox' };
  if (inner instanceof z.ZodMiniEnum) return { name, kind: 'select', required: !optional, options: inner.options as string[] };
  // A string format (`z.email()`) is a ZodMiniString too: like classic zod's, the form leaves it out.
  if (inner instanceof z.ZodMiniString && !(inner instanceof z.ZodMiniStringFormat)) {
    const maxLength = maxLengthOf(inner);
    return { name, kind: 'text', required: !optional, multiline: (maxLength ?? Infinity) > MULTILINE_ABOVE, maxLength };
  }
  return undefined;
}

/**
 * The fields of a form for `schema`'s properties, in its order, but those in `omit` (what
 * the page fills itself: a tenant, a generated secret). `choices` names the properties
 * that are lists of words from a closed set. A property of another type is left out.
 */
export function schemaFields(
  schema: z.ZodMiniObject,
  { omit = [], choices = {} }: { omit?: readonly string[]; choices?: Readonly<Record<string, readonly string[]>> } = {},
): SchemaField[] {
  return Object.entries(schema.shape).flatMap(([name, property]) => {
    if (omit.includes(name)) return [];
    const field = describe(name, property as z.ZodMiniType, choices);
    return field ? [field] : [];
  });
}

const single = (value: string | string[] | undefined) => (Array.isArray(value) ? value[0] : value);

/**
 * The JSON body a posted form stands for, for its schema to parse as strictly as the JSON
 * route does. A checkbox is `true` when sent and `false` when not; a `choices` field is
 * its checked options separated by spaces (none: the empty string, which the schema
 * refuses); a multi-line text is its lines joined by single spaces. An empty text or
 * select is left out when the property is optional and may not be empty, kept as `""`
 * otherwise (so that a required one is refused beside its field, and an optional list
 * that may be empty is emptied).
 */
export function bodyOfForm(schema: z.ZodMiniObject, fields: readonly SchemaField[], form: PostedForm): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  for (const field of fields) {
    if (field.kind === 'checkbox') body[field.name] = single(form[field.name]) !== undefined;
    else if (field.kind === 'choices')
      body[field.name] = field.options.filter((option) => single(form[choiceName(field.name, option)]) !== undefined).join(' ');
    else {
      const raw = single(form[field.name]) ?? '';
      const value = field.kind === 'text' && field.multiline ? raw.split(/\s+/).filter(Boolean).join(' ') : raw.trim();
      if (value !== '' || field.required || acceptsEmpty(schema, field.name)) body[field.name] = value;
    }
  }
  return body;
}

/** Whether the property takes the empty string (a list that may be emptied: post-logout URIs). */
const acceptsEmpty = (schema: z.ZodMiniObject, name: string) =>
  (schema.shape[name] as z.ZodMiniType | undefined)?.safeParse('').success === true;

/** The form's values for a record shown for editing: lists as one item a line, booleans as checkboxes. */
export function formValuesOf(fields: readonly SchemaField[], values: Record<string, unknown>): Record<string, string | boolean> {
  const out: Record<string, string | boolean> = {};
  for (const field of fields) {
    const value = values[field.name];
    if (field.kind === 'checkbox') out[field.name] = value === true;
    else if (field.kind === 'choices') {
      const chosen = Array.isArray(value) ? value.map(String) : typeof value === 'string' ? value.split(/[\s,]+/) : [];
      for (const option of field.options) out[choiceName(field.name, option)] = chosen.includes(option);
    } else if (Array.isArray(value)) out[field.name] = value.join(field.kind === 'text' && field.multiline ? '\n' : ' ');
    else if (typeof value === 'string') out[field.name] = value;
  }
  return out;
}

/** The names a form made from `fields` posts. */
export const namesOf = (fields: readonly SchemaField[]) =>
  fields.flatMap((field) => (field.kind === 'choices' ? field.options.map((option) => choiceName(field.name, option)) : [field.name]));

/**
 * The schema of a console action's form that stands for a JSON route's body (docs/api.md
 * 15.3): the posted form, refused whole when it holds a field not in `names`; its hidden
 * fields (what names the record) parsed by `hidden`; the rest turned into the body by
 * `toBody` and parsed by the JSON route's own `schema`. Every refusal keeps its path, so
 * it shows beside the form's field of that name.
 */
export function postedBody<S extends z.ZodMiniType, H extends z.core.$ZodShape>(options: {
  names: readonly string[];
  hidden: H;
  toBody: (form: Record<string, string>) => unknown;
  schema: S;
}) {
  const hidden = z.strictObject(options.hidden);
  const hiddenNames = Object.keys(options.hidden);
  const names = new Set([...options.names, ...hiddenNames]);
  return z.pipe(
    z
      .record(z.string(), z.string())
      .check(z.refine((form) => Object.keys(form).every((name) => names.has(name)), { message: 'Invalid form body', abort: true })),
    z.transform((form, context) => {
      const named = hidden.safeParse(Object.fromEntries(hiddenNames.map((name) => [name, form[name]])));
      const body = options.schema.safeParse(options.toBody(form));
      for (const issue of [...(named.error?.issues ?? []), ...(body.error?.issues ?? [])])
        context.issues.push({ ...issue, input: form } as z.core.$ZodRawIssue);
      if (!named.success || !body.success) return z.NEVER;
      return { ...named.data, body: body.data } as z.output<typeof hidden> & { body: z.output<S> };
    }),
  );
}
