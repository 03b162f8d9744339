import { type ComponentChildren, h } from 'preact';
import type * as z from 'zod/mini';
import type { FieldProblem } from '../errors';
import { isMessageKey, type Translate } from './i18n';
import { actionPath } from './paths';
import type { FormState, PageContext } from './section';

/*
 * The forms of the pages (docs/api.md 15.1), after the GOV.UK Design System's: a visible
 * label in plain words, a hint, the error beside its field (`aria-describedby`,
 * `aria-invalid`) and a summary at the top linking to each. A form comes back with its
 * values (never a password or a code) and status 400.
 */

/** The message of one zod issue, in the page's language: the schema's own message when it names one. */
function issueMessage(issue: z.core.$ZodIssue, t: Translate): string {
  if (isMessageKey(issue.message)) return t(issue.message);
  switch (issue.code) {
    case 'invalid_type':
      return t('form:required');
    case 'too_small':
      return issue.minimum === 1 ? t('form:required') : t('form:tooShort', { min: Number(issue.minimum) });
    case 'too_big':
      return t('form:tooLong', { max: Number(issue.maximum) });
    case 'invalid_value':
      return t('form:invalidChoice');
    case 'invalid_format':
      return issue.format === 'email' ? t('form:invalidEmail') : issue.format === 'url' ? t('form:invalidUrl') : t('form:invalid');
    default:
      return t('form:invalid');
  }
}

/** Each field's first problem, by field name; problems of the form as a whole under `''`. */
export function fieldErrors(issues: readonly z.core.$ZodIssue[], t: Translate): Record<string, string> {
  const errors: Record<string, string> = {};
  for (const issue of issues) {
    const name = issue.code === 'unrecognized_keys' ? '' : String(issue.path[0] ?? '');
    errors[name] ??= name === '' ? t('errors:INVALID_FORM') : issueMessage(issue, t);
  }
  return errors;
}

/** The fields a domain refusal names (a ValidationError's `fields`, docs/api.md 2), by field name, in the page's language. */
export function domainFieldErrors(fields: readonly FieldProblem[] | undefined, t: Translate): Record<string, string> {
  const errors: Record<string, string> = {};
  for (const field of fields ?? []) {
    const name = field.path.split('.')[0] ?? '';
    errors[name] ??= isMessageKey(field.message) ? t(field.message) : t('form:invalid');
  }
  return errors;
}

/** The id of a field of an action's form: unique on a page that has several forms. */
export const fieldId = (action: string, name: string) => `${action}-${name}`;

/** The state of `action`'s form, when the page is that form come back. */
export const stateOf = (form: FormState | undefined, action: string) => (form?.action === action ? form : undefined);

export interface FieldProps {
  /** The action the field's form posts to. */
  action: string;
  name: string;
  /** The visible label, in plain words, translated. */
  label: string;
  hint?: string | undefined;
  form?: FormState | undefined;
  type?: 'text' | 'email' | 'password' | 'tel' | 'url' | 'search';
  /** The value before any posting (a setting as it is). */
  value?: string | undefined;
  autocomplete?: string | undefined;
  inputMode?: 'text' | 'numeric' | 'tel' | 'email' | 'url' | undefined;
  required?: boolean;
  maxLength?: number | undefined;
  /** A `<select>` of these options, in place of a text field. */
  options?: readonly { value: string; label: string }[] | undefined;
}

/** The ids a field's `aria-describedby` names: its hint and its error. */
export function described(id: string, hint: string | undefined, error: string | undefined) {
  return [hint ? `${id}-hint` : '', error ? `${id}-error` : ''].filter(Boolean).join(' ') || undefined;
}

/** A field's hint and error, which its `aria-describedby` names. */
export function HintAndError({ id, hint, error }: { id: string; hint?: string | undefined; error?: string | undefined }) {
  return (
    <>
      {hint ? (
        <p class="hint" id={`${id}-hint`}>
          {hint}
        </p>
      ) : null}
      {error ? (
        <p class="field-error" id={`${id}-error`}>
          {error}
        </p>
      ) : null}
    </>
  );
}

/** A labelled field with its hint and error. */
export function Field(props: FieldProps) {
  const { action, name, label, hint, type = 'text', options } = props;
  const state = stateOf(props.form, action);
  const id = fieldId(action, name);
  const error = state?.errors[name];
  const value = type === 'password' ? undefined : (state?.values[name] ?? props.value);
  const common = {
    id,
    name,
    'aria-describedby': described(id, hint, error),
    'aria-invalid': error ? ('true' as const) : undefined,
    required: props.required,
  };
  return (
    <div class="field">
      <label for={id}>{label}</label>
      <HintAndError id={id} hint={hint} error={error} />
      {options ? (
        <select {...common}>
          {options.map((option) => (
            <option value={option.value} selected={option.value === value}>
              {option.label}
            </option>
          ))}
        </select>
      ) : type === 'password' ? (
        <input {...common} type="password" autocomplete={props.autocomplete} maxLength={props.maxLength} />
      ) : (
        // preact types each input type apart; h() takes the union.
        h('input', {
          ...common,
          type,
          value: value ?? '',
          autocomplete: props.autocomplete,
          inputMode: props.inputMode,
          maxLength: props.maxLength,
        })
      )}
    </div>
  );
}

/**
 * The summary at the top of a form come back with problems: announced, and linking to each
 * field. A refusal of the form as a whole (`problem`) is the frame's, at the top of the page.
 */
export function ErrorSummary({ action, form, t }: { action: string; form?: FormState | undefined; t: Translate }) {
  const state = stateOf(form, action);
  if (!state) return null;
  const fields = Object.entries(state.errors).filter(([name]) => name !== '');
  if (fields.length === 0 && !state.errors['']) return null;
  return (
    <div class="summary" role="alert" tabIndex={-1}>
      <h2>{t('console:problemSummary')}</h2>
      {state.errors[''] ? <p>{state.errors['']}</p> : null}
      {fields.length ? (
        <ul>
          {fields.map(([name, message]) => (
            <li>
              <a href={`#${fieldId(action, name)}`}>{message}</a>
            </li>
          ))}
        </ul>
      ) : null}
    </div>
  );
}

export interface ActionFormProps {
  context: Pick<PageContext, 'area' | 'signedIn' | 't'>;
  section: string;
  action: string;
  form?: FormState | undefined;
  /** The label of the submit button, translated; none for a form that brings its own buttons. */
  submit?: string | undefined;
  /** A question the confirmation dialog asks before it is sent (with JavaScript only: without, it is sent as it is). */
  confirm?: string | undefined;
  /** The class of the submit button. */
  kind?: 'secondary' | 'danger' | undefined;
  /** Extra attributes of the `<form>`: a passkey ceremony's. */
  attributes?: Record<string, string | boolean | undefined>;
  /** An accessible name of the form when the page has several. */
  label?: string | undefined;
  children?: ComponentChildren;
}

/** A form posting to one action of a section, with the session's CSRF token and, when it came back, its summary. */
export function ActionForm({ context, section, action, form, submit, confirm, kind, attributes, label, children }: ActionFormProps) {
  return (
    <form method="post" action={actionPath(context.area, section, action)} data-confirm={confirm} aria-label={label} {...attributes}>
      <input type="hidden" name="csrf" value={context.signedIn.csrf} />
      <ErrorSummary action={action} form={form} t={context.t} />
      {children}
      {submit ? (
        <button type="submit" class={kind}>
          {submit}
        </button>
      ) : null}
    </form>
  );
}

/** A refusal of a form as a whole, at the top of the page (lib/console/frame.tsx). */
export function ProblemSummary({ problem, t }: { problem?: string | undefined; t: Translate }) {
  if (!problem) return null;
  return (
    <div class="summary" role="alert">
      <h2>{t('console:problemSummary')}</h2>
      <p>{problem}</p>
    </div>
  );
}
