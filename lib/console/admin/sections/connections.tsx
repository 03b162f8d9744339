import { NotFoundError } from '../../../errors';
import { connectionPatch, domainName, METADATA_MAX_CHARS, newConnection, newDomain } from '../../../federation/admin-input';
import { CONNECTION_TYPES, type ConnectionType } from '../../../federation/connection';
import { createConnection, updateConnection } from '../../../federation/connection-changes';
import {
  CONNECTION_NOT_FOUND,
  type ConnectionView,
  deleteConnection,
  listConnections,
  readConnection,
} from '../../../federation/connections';
import { addDomain, DOMAIN_NOT_FOUND, type DomainView, deleteDomain, listDomains, verifyDomain } from '../../../federation/domains';
import { ROLES } from '../../../users/user';
import * as z from '../../../zod';
import { ActionForm, Field } from '../../form';
import { sectionPath } from '../../paths';
import { defineAction, type FormState, type PageContext, type Section } from '../../section';
import { CheckboxField, ConfirmDeletion, TextAreaField, viewLink } from '../app-parts';
import { CONNECTION_FIELDS, connectionFormValues, connectionPatchBody, newConnectionBody } from '../connection-form';
import { postedBody } from '../schema-form';

/*
 * docs/api.md 15.3.7: the tenant's connections to its identity providers and its domains
 * (docs/api.md 14.1, 14.2). The forms stand for the bodies of POST and PATCH
 * /admin/connections and POST /admin/domains, parsed by those routes' schemas; the actions
 * call lib/federation/ as the routes do. An OIDC client secret is asked for, never shown.
 */

const SECTION = 'connections';
const connectionId = z.string().check(z.minLength(1), z.maxLength(128));

/** A form come back for one record: the state of its own form only (a page lists several). */
const stateFor = (form: FormState | undefined, action: string, field: string, value: string) =>
  form?.action === action && form.values[field] === value ? form : undefined;

/** The actions on one connection, and on one domain. */
const ONE_CONNECTION = new Set(['update', 'enable', 'disable', 'delete']);
const ONE_DOMAIN = new Set(['verify-domain', 'delete-domain']);
const domainNotFound = () => new NotFoundError(DOMAIN_NOT_FOUND, { code: 'DOMAIN_NOT_FOUND' });

const roleOptions = ROLES.map((role) => ({ value: role, label: role }));

/** The fields of a connection's form, as its type has them; `values` fill an edit form. */
function ConnectionFields(props: {
  context: PageContext;
  type: ConnectionType;
  action: string;
  form?: FormState | undefined;
  values?: Record<string, string | boolean> | undefined;
  editing: boolean;
}) {
  const { context, type, action, form, values = {}, editing } = props;
  const { t } = context;
  const label = (name: string) => t(`adminApps:connections.field.${name}`);
  const text = (name: string) => (typeof values[name] === 'string' ? String(values[name]) : undefined);
  const field = (name: string, extra: { hint?: string; required?: boolean; type?: 'password' | 'url' } = {}) => (
    <Field action={action} name={name} label={label(name)} form={form} value={text(name)} {...extra} />
  );
  const area = (name: string, extra: { hint?: string; rows?: number; maxLength?: number } = {}) => (
    <TextAreaField action={action} name={name} label={label(name)} form={form} value={text(name)} {...extra} />
  );
  const check = (name: string, checked: boolean) => (
    <CheckboxField action={action} name={name} label={label(name)} form={form} checked={checked} />
  );
  return (
    <>
      {field('name', { required: true })}
      {type === 'oidc' ? (
        <>
          {field('issuer', { required: true, type: 'url' })}
          {field('clientId', { required: true })}
          {field('clientSecret', {
            required: !editing,
            type: 'password',
            ...(editing ? { hint: t('adminApps:connections.secretKept') } : {}),
          })}
          {field('scopes')}
        </>
      ) : (
        <>
          {area('metadataXml', {
            rows: 6,
            maxLength: METADATA_MAX_CHARS,
            hint: t(editing ? 'adminApps:connections.metadataReplaces' : 'adminApps:connections.samlSource'),
          })}
          {field('entityId')}
          {field('ssoUrl', { type: 'url' })}
          {area('signingCertificates', { rows: 4 })}
        </>
      )}
      {field('domains', { required: true })}
      {type === 'oidc' ? field('roleClaim') : field('roleAttribute')}
      {area('roleMapping')}
      <Field
        action={action}
        name="defaultRole"
        label={label('defaultRole')}
        form={form}
        value={text('defaultRole') ?? 'ANALYST'}
        options={roleOptions}
      />
      {check('jitProvisioning', values.jitProvisioning === true)}
      {check('ssoRequired', values.ssoRequired === true)}
      {editing ? null : check('enabled', true)}
    </>
  );
}

function DomainList({ context, domains, form }: { context: PageContext; domains: DomainView[]; form?: FormState | undefined }) {
  const { t } = context;
  if (domains.length === 0) return <p>{t('adminApps:connections.noDomains')}</p>;
  return (
    <ul class="cards">
      {domains.map((domain) => (
        <li>
          <p>
            <strong>{domain.domain}</strong> · {t(`adminApps:connections.${domain.status}`)}
          </p>
          {domain.verification ? (
            <>
              <p>{t('adminApps:connections.txtIntro')}</p>
              <dl>
                <dt>{t('adminApps:connections.txtName')}</dt>
                <dd>
                  <code>{domain.verification.name}</code>
                </dd>
                <dt>{t('adminApps:connections.txtValue')}</dt>
                <dd>
                  <code>{domain.verification.value}</code>
                </dd>
              </dl>
              <ActionForm
                context={context}
                section={SECTION}
                action="verify-domain"
                form={stateFor(form, 'verify-domain', 'domain', domain.domain)}
                submit={t('adminApps:connections.verify')}
                label={`${t('adminApps:connections.verify')} ${domain.domain}`}
              >
                <input type="hidden" name="domain" value={domain.domain} />
              </ActionForm>
            </>
          ) : null}
          <p>
            <a href={viewLink(SECTION, { deleteDomain: domain.domain })}>
              {t('adminApps:connections.domainRemoveConfirm', { domain: domain.domain })}
            </a>
          </p>
        </li>
      ))}
    </ul>
  );
}

/** Enabling or disabling a connection: one button. */
function EnableForm({ context, connection }: { context: PageContext; connection: ConnectionView }) {
  const { t } = context;
  const action = connection.enabled ? 'disable' : 'enable';
  return (
    <ActionForm
      context={context}
      section={SECTION}
      action={action}
      submit={t(`adminApps:connections.${action}`)}
      kind="secondary"
      label={`${t(`adminApps:connections.${action}`)} ${connection.name}`}
    >
      <input type="hidden" name="id" value={connection.id} />
    </ActionForm>
  );
}

function ConnectionList({ context, connections }: { context: PageContext; connections: ConnectionView[] }) {
  const { t } = context;
  if (connections.length === 0) return <p>{t('adminApps:connections.none')}</p>;
  return (
    <ul class="cards">
      {connections.map((connection) => (
        <li>
          <p>
            <a href={viewLink(SECTION, { connection: connection.id })}>{connection.name}</a> ·{' '}
            {t(`adminApps:connections.${connection.type}`)} ·{' '}
            {t(connection.enabled ? 'adminApps:connections.enabled' : 'adminApps:connections.disabled')}
            {connection.ssoRequired ? ` · ${t('adminApps:connections.ssoRequired')}` : ''}
          </p>
          <p>{connection.domains.join(', ')}</p>
          <EnableForm context={context} connection={connection} />
        </li>
      ))}
    </ul>
  );
}

/** What the merchant's IT admin enters at the IdP (docs/api.md 14.1). */
function AtTheIdp({ context, connection }: { context: PageContext; connection: ConnectionView }) {
  const { t } = context;
  const rows: Array<[string, string]> =
    connection.type === 'oidc'
      ? [['redirectUri', connection.redirectUri]]
      : [
          ['acsUrl', connection.acsUrl],
          ['spEntityId', connection.spEntityId],
          ['spMetadataUrl', connection.spMetadataUrl],
        ];
  return (
    <>
      <h2>{t('adminApps:connections.atIdp')}</h2>
      <dl>
        {rows.map(([key, value]) => (
          <>
            <dt>{t(`adminApps:connections.${key}`)}</dt>
            <dd>
              <code>{value}</code>
            </dd>
          </>
        ))}
      </dl>
    </>
  );
}

function ConnectionPage({ context, connection, form }: { context: PageContext; connection: ConnectionView; form?: FormState | undefined }) {
  const { t } = context;
  return (
    <>
      <h2>{t('adminApps:connections.editTitle', { name: connection.name })}</h2>
      <p>
        {t(`adminApps:connections.${connection.type}`)} ·{' '}
        {t(connection.enabled ? 'adminApps:connections.enabled' : 'adminApps:connections.disabled')}
      </p>
      <EnableForm context={context} connection={connection} />
      <AtTheIdp context={context} connection={connection} />
      <h2>{t('adminApps:connections.save')}</h2>
      <ActionForm context={context} section={SECTION} action="update" form={form} submit={t('adminApps:connections.save')}>
        <input type="hidden" name="id" value={connection.id} />
        <input type="hidden" name="type" value={connection.type} />
        <ConnectionFields
          context={context}
          type={connection.type}
          action="update"
          form={form}
          values={connectionFormValues(connection)}
          editing
        />
      </ActionForm>
      <h2>{t('adminApps:connections.remove')}</h2>
      <p>
        <a href={viewLink(SECTION, { delete: connection.id })}>{t('adminApps:connections.removeSubmit')}</a>
      </p>
      <p>
        <a href={sectionPath('admin', SECTION)}>{t('adminApps:connections.back')}</a>
      </p>
    </>
  );
}

/**
 * The tenant's connection a view or form names, or a 404 page (another tenant's is unknown
 * too, and so is an id no connection can have).
 */
const connectionOf = async (context: PageContext, id: string) => {
  if (!connectionId.safeParse(id).success) throw new NotFoundError(CONNECTION_NOT_FOUND, { code: 'CONNECTION_NOT_FOUND' });
  return readConnection(context.deps, context.identity, id);
};

/** The new-connection form of one type. */
function NewConnection({ context, type, form }: { context: PageContext; type: ConnectionType; form?: FormState | undefined }) {
  const { t } = context;
  const action = `create-${type}`;
  return (
    <>
      <h2>{t(type === 'oidc' ? 'adminApps:connections.newOidc' : 'adminApps:connections.newSaml')}</h2>
      <ActionForm context={context} section={SECTION} action={action} form={form} submit={t('adminApps:connections.create')}>
        <ConnectionFields context={context} type={type} action={action} form={form} editing={false} />
      </ActionForm>
    </>
  );
}

const newConnectionAction = (type: ConnectionType) =>
  defineAction({
    form: postedBody({
      names: [...CONNECTION_FIELDS[type], 'enabled'],
      hidden: {},
      toBody: (form) => newConnectionBody(type, form),
      schema: newConnection,
    }),
    secretFields: ['clientSecret'],
    async run(context, { body }) {
      const connection = await createConnection(context.deps, context.identity, body);
      return { flash: 'adminApps:connections.createdFlash', values: { name: connection.name }, query: { connection: connection.id } };
    },
  });

const enableAction = (enabled: boolean) =>
  defineAction({
    form: z.strictObject({ id: connectionId }),
    async run(context, { id }) {
      const connection = await updateConnection(context.deps, context.identity, id, { enabled });
      return {
        flash: enabled ? 'adminApps:connections.enabledFlash' : 'adminApps:connections.disabledFlash',
        values: { name: connection.name },
      };
    },
  });

export const connectionsSection: Section = {
  id: SECTION,
  title: 'adminApps:connections.title',
  order: 60,
  async render(context, form) {
    const { t, query } = context;
    // A form come back names its record: one that is not the tenant's is the 404 page.
    if (form && ONE_CONNECTION.has(form.action)) await connectionOf(context, form.values.id ?? '');
    const shown = form?.action === 'update' || form?.action === 'enable' || form?.action === 'disable' ? form.values.id : query.connection;
    if (shown !== undefined) return <ConnectionPage context={context} connection={await connectionOf(context, shown)} form={form} />;
    if (query.delete !== undefined) {
      const connection = await connectionOf(context, query.delete);
      return (
        <>
          <h2>{t('adminApps:connections.removeConfirm', { name: connection.name })}</h2>
          <ConfirmDeletion
            context={context}
            section={SECTION}
            action="delete"
            target={{ id: connection.id }}
            warning={t('adminApps:connections.removeWarning', { name: connection.name })}
            submit={t('adminApps:connections.removeSubmit')}
            back={viewLink(SECTION, { connection: connection.id })}
          />
        </>
      );
    }
    const [domains, connections] = await Promise.all([
      listDomains(context.deps, context.identity),
      listConnections(context.deps, context.identity),
    ]);
    if (form && ONE_DOMAIN.has(form.action) && !domains.some((each) => each.domain === form.values.domain)) throw domainNotFound();
    if (query.deleteDomain !== undefined) {
      const name = domains.find((each) => each.domain === query.deleteDomain)?.domain;
      if (name === undefined) throw domainNotFound();
      return (
        <>
          <h2>{t('adminApps:connections.domainRemoveConfirm', { domain: name })}</h2>
          <ConfirmDeletion
            context={context}
            section={SECTION}
            action="delete-domain"
            target={{ domain: name }}
            warning={t('adminApps:connections.domainRemoveWarning', { domain: name })}
            submit={t('adminApps:connections.domainRemoveSubmit')}
            back={sectionPath('admin', SECTION)}
          />
        </>
      );
    }
    return (
      <>
        <p>{t('adminApps:connections.intro')}</p>
        <section aria-labelledby="domains">
          <h2 id="domains">{t('adminApps:connections.domains')}</h2>
          <p>{t('adminApps:connections.domainsIntro')}</p>
          <DomainList context={context} domains={domains} form={form} />
          <ActionForm context={context} section={SECTION} action="add-domain" form={form} submit={t('adminApps:connections.addDomain')}>
            <Field action="add-domain" name="domain" label={t('adminApps:connections.domain')} form={form} required />
          </ActionForm>
        </section>
        <section aria-labelledby="connections">
          <h2 id="connections">{t('adminApps:connections.list')}</h2>
          <ConnectionList context={context} connections={connections} />
          {CONNECTION_TYPES.map((type) => (
            <NewConnection context={context} type={type} form={form} />
          ))}
        </section>
      </>
    );
  },
  actions: {
    'add-domain': defineAction({
      form: newDomain,
      async run(context, { domain }) {
        await addDomain(context.deps, context.identity, domain);
        return { flash: 'adminApps:connections.domainAdded', values: { domain } };
      },
    }),
    'verify-domain': defineAction({
      form: z.strictObject({ domain: domainName }),
      async run(context, { domain }) {
        await verifyDomain(context.deps, context.identity, domain);
        return { flash: 'adminApps:connections.domainVerified', values: { domain } };
      },
    }),
    'delete-domain': defineAction({
      form: z.strictObject({ domain: domainName }),
      async run(context, { domain }) {
        await deleteDomain(context.deps, context.identity, domain);
        return { flash: 'adminApps:connections.domainRemoved', values: { domain } };
      },
    }),
    'create-oidc': newConnectionAction('oidc'),
    'create-saml': newConnectionAction('saml'),
    update: defineAction({
      form: postedBody({
        names: [...CONNECTION_FIELDS.oidc, ...CONNECTION_FIELDS.saml],
        hidden: { id: connectionId, type: z.enum(CONNECTION_TYPES) },
        toBody: (form) => connectionPatchBody(form.type === 'saml' ? 'saml' : 'oidc', form),
        schema: connectionPatch,
      }),
      secretFields: ['clientSecret'],
      async run(context, { id, body }) {
        const connection = await updateConnection(context.deps, context.identity, id, body);
        return { flash: 'adminApps:connections.saved', values: { name: connection.name }, query: { connection: connection.id } };
      },
    }),
    enable: enableAction(true),
    disable: enableAction(false),
    delete: defineAction({
      form: z.strictObject({ id: connectionId }),
      async run(context, { id }) {
        const connection = await connectionOf(context, id);
        await deleteConnection(context.deps, context.identity, connection.id);
        return { flash: 'adminApps:connections.removed', values: { name: connection.name } };
      },
    }),
  },
};
