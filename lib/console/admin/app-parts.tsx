import type { ComponentChildren } from 'preact';
import { ActionForm, described, Field, fieldId, HintAndError, stateOf } from '../form';
import type { Translate } from '../i18n';
import { sectionPath } from '../paths';
import type { FormState, PageContext } from '../section';
import { choiceName, type SchemaField } from './schema-form';

/*
 * The parts the console's app sections share (docs/api.md 15.3.5-15.3.8): the fields the
 * frame's `Field` does not draw (a text area, a checkbox, a set of checkboxes), a secret
 * shown once, and the confirmation page of a deletion, which works without JavaScript.
 */

interface FieldBase {
  action: string;
  name: string;
  label: string;
  hint?: string | undefined;
  form?: FormState | undefined;
}

/** A labelled text area (lists one item a line, SAML metadata, certificates). */
export function TextAreaField(
  props: FieldBase & { value?: string | undefined; required?: boolean; maxLength?: number | undefined; rows?: number },
) {
  const { action, name, label, hint } = props;
  const id = fieldId(action, name);
  const state = stateOf(props.form, action);
  const error = state?.errors[name];
  return (
    <div class="field">
      <label for={id}>{label}</label>
      <HintAndError id={id} hint={hint} error={error} />
      <textarea
        id={id}
        name={name}
        rows={props.rows ?? 3}
        required={props.required}
        maxLength={props.maxLength}
        aria-describedby={described(id, hint, error)}
        aria-invalid={error ? 'true' : undefined}
      >
        {state ? (state.values[name] ?? '') : (props.value ?? '')}
      </textarea>
    </div>
  );
}

/** A labelled checkbox: checked as posted when the form came back, else as the record is. */
export function CheckboxField(props: FieldBase & { checked?: boolean | undefined }) {
  const { action, name, label, hint } = props;
  const id = fieldId(action, name);
  const state = stateOf(props.form, action);
  const error = state?.errors[name];
  return (
    <div class="field check">
      <input
        type="checkbox"
        id={id}
        name={name}
        checked={state ? state.values[name] !== undefined : props.checked === true}
        aria-describedby={described(id, hint, error)}
        aria-invalid={error ? 'true' : undefined}
      />
      <label for={id}>{label}</label>
      <HintAndError id={id} hint={hint} error={error} />
    </div>
  );
}

/** A set of checkboxes for a list of words from a closed set; the error summary links to the first. */
export function ChoicesField(
  props: FieldBase & { options: readonly { value: string; label: string }[]; chosen?: readonly string[] | undefined },
) {
  const { action, name, label, hint, options } = props;
  const id = fieldId(action, name);
  const state = stateOf(props.form, action);
  const error = state?.errors[name];
  return (
    <fieldset class="field" aria-describedby={described(id, hint, error)}>
      <legend>{label}</legend>
      <HintAndError id={id} hint={hint} error={error} />
      {options.map((option, index) => {
        const optionName = choiceName(name, option.value);
        const optionId = index === 0 ? id : `${id}-${index}`;
        return (
          <div class="check">
            <input
              type="checkbox"
              id={optionId}
              name={optionName}
              checked={state ? state.values[optionName] !== undefined : (props.chosen ?? []).includes(option.value)}
              aria-invalid={error ? 'true' : undefined}
            />
            <label for={optionId}>{option.label}</label>
          </div>
        );
      })}
    </fieldset>
  );
}

/**
 * A secret shown this once (docs/api.md 15.1): in the POST's own answer, never in a cookie
 * or a URL; with a copy button that the frame's script shows when it can copy.
 */
export function ShownOnce({
  id,
  label,
  secret,
  t,
  children,
}: {
  id: string;
  label: string;
  secret: string;
  t: Translate;
  children?: ComponentChildren;
}) {
  return (
    <div class="shown-once">
      <h2 id={`${id}-label`}>{label}</h2>
      <p>{t('adminApps:common.shownOnce')}</p>
      <p class="secret" id={id}>
        {secret}
      </p>
      <button type="button" class="secondary" data-copy={id} data-done={t('adminApps:common.copied')} hidden>
        {t('adminApps:common.copy')}
      </button>
      <span id={`${id}-copied`} role="status" />
      {children}
    </div>
  );
}

/**
 * The confirmation of a deletion, a page of its own reached by a link (`?delete=…`), so
 * that deleting asks first with JavaScript or without: what goes, what follows, the
 * button that deletes, and the way back.
 */
export function ConfirmDeletion(props: {
  context: PageContext;
  section: string;
  action: string;
  /** The hidden fields that name what goes. */
  target: Record<string, string>;
  warning: string;
  submit: string;
  back: string;
}) {
  const { context, section, action, target, warning, submit, back } = props;
  return (
    <>
      <p>{warning}</p>
      <ActionForm context={context} section={section} action={action} submit={submit} kind="danger">
        {Object.entries(target).map(([name, value]) => (
          <input type="hidden" name={name} value={value} />
        ))}
      </ActionForm>
      <p>
        <a href={back}>{context.t('adminApps:common.cancel')}</a>
      </p>
    </>
  );
}

/** A link to one view of a section's page (`?client=…`, `?delete=…`). */
export function viewLink(section: string, query: Record<string, string>): string {
  return `${sectionPath('admin', section)}?${new URLSearchParams(query).toString()}`;
}

/**
 * The fields of a form made from a schema (lib/console/admin/schema-form.ts), each with
 * its label from `labels` (`<labels>.<name>`) and the hint of `hints` if the catalogue has one.
 */
export function SchemaFields(props: {
  fields: readonly SchemaField[];
  action: string;
  form?: FormState | undefined;
  values?: Record<string, string | boolean> | undefined;
  t: Translate;
  labels: string;
  hints: string;
  optionLabels: (field: string, option: string) => string;
  exists: (key: string) => boolean;
}) {
  const { fields, action, form, values = {}, t } = props;
  const hintOf = (name: string) => (props.exists(`${props.hints}.${name}`) ? t(`${props.hints}.${name}`) : undefined);
  return (
    <>
      {fields.map((field) => {
        const common = { action, name: field.name, label: t(`${props.labels}.${field.name}`), hint: hintOf(field.name), form };
        if (field.kind === 'checkbox') return <CheckboxField {...common} checked={values[field.name] === true} />;
        if (field.kind === 'choices')
          return (
            <ChoicesField
              {...common}
              options={field.options.map((option) => ({ value: option, label: props.optionLabels(field.name, option) }))}
              chosen={field.options.filter((option) => values[choiceName(field.name, option)] === true)}
            />
          );
        if (field.kind === 'select')
          return (
            <Field
              {...common}
              required={field.required}
              value={String(values[field.name] ?? '')}
              options={[
                ...(field.required ? [] : [{ value: '', label: t('adminApps:clients.defaultOption') }]),
                ...field.options.map((option) => ({ value: option, label: option })),
              ]}
            />
          );
        if (field.multiline)
          return (
            <TextAreaField {...common} required={field.required} maxLength={field.maxLength} value={String(values[field.name] ?? '')} />
          );
        return <Field {...common} required={field.required} maxLength={field.maxLength} value={String(values[field.name] ?? '')} />;
      })}
    </>
  );
}
