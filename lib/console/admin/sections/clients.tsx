import { AppError, NotFoundError, ValidationError } from '../../../errors';
import { type AdminClientView, GRANT_TYPES } from '../../../oauth/client';
import {
  CLIENT_NOT_FOUND,
  deleteClient,
  listClients,
  PREVIOUS_SECRET_MAX_SECONDS,
  readClient,
  rotateClientSecret,
  updateClient,
} from '../../../oauth/client-admin';
import { clientIdField, clientRegistration, clientUpdate } from '../../../oauth/client-schemas';
import { registerClient } from '../../../oauth/registration';
import * as z from '../../../zod';
import { ActionForm, Field } from '../../form';
import { isMessageKey } from '../../i18n';
import { sectionPath } from '../../paths';
import { defineAction, type FormState, type PageContext, type Section } from '../../section';
import { ConfirmDeletion, SchemaFields, ShownOnce, viewLink } from '../app-parts';
import { bodyOfForm, formValuesOf, namesOf, postedBody, schemaFields } from '../schema-form';

/*
 * docs/api.md 15.3.6: the tenant's OAuth clients. The forms are read off the JSON routes'
 * schemas (POST /oauth2/clients, PATCH /oauth2/clients/{clientId}), so a field the
 * registration gains shows here with its label; the actions call the same functions of
 * lib/oauth/ as those routes. A secret is made here (256 random bits) and shown once, in
 * the answer to the form that made it.
 */

const SECTION = 'clients';
const choices = { grant_types: GRANT_TYPES };
/** The registration's fields but the tenant (the ADMIN's) and the secret (made here). */
const registration = z.omit(clientRegistration, { client_secret: true, tenant_id: true });
const createFields = schemaFields(registration, { choices });
const editFields = schemaFields(clientUpdate, { choices });
/** How long the previous secret keeps working, in seconds (docs/api.md 9.13): the choices offered. */
const KEEP_PREVIOUS = ['0', '3600', '86400', '604800'] as const;

/** The field a refusal of lib/oauth/ is about, by its code (and message where one code serves two fields). */
function fieldOfRefusal(error: AppError): string | undefined {
  if (error.code === 'INVALID_REDIRECT_URI') {
    if (error.message.includes('backchannel')) return 'backchannel_logout_uri';
    return error.message.includes('post_logout') ? 'post_logout_redirect_uris' : 'redirect_uri';
  }
  return (
    {
      UNSUPPORTED_GRANT_TYPE: 'grant_types',
      INVALID_SCOPE: 'scope',
      INVALID_TARGET: 'resources',
      RESERVED_CLIENT_ID: 'client_id',
      INVALID_ORIGIN: 'allowed_origins',
    } as Record<string, string>
  )[error.code];
}

/** Runs a change; a refusal of one field comes back beside that field. */
async function besideTheField<T>(change: () => Promise<T>): Promise<T> {
  try {
    return await change();
  } catch (error) {
    const field = error instanceof ValidationError && !error.fields ? fieldOfRefusal(error) : undefined;
    if (!field || !(error instanceof AppError)) throw error;
    throw new ValidationError(error.message, {
      code: error.code,
      fields: [{ path: field, message: `adminApps:clients.error.${error.code}` }],
    });
  }
}

const grantLabel = (context: PageContext) => (_field: string, option: string) => {
  const key = `adminApps:clients.grant.${option.replace(/[^A-Za-z0-9]+/g, '_')}`;
  return isMessageKey(key) ? context.t(key) : option;
};

/** The edit form's values of a stored client: the JSON route's names for what the client has. */
const editValues = (client: AdminClientView) =>
  formValuesOf(editFields, {
    ...client,
    redirect_uri: client.redirect_uris,
    client_name: client.client_name ?? '',
  });

function ClientList({ context, clients }: { context: PageContext; clients: AdminClientView[] }) {
  const { t } = context;
  if (clients.length === 0) return <p>{t('adminApps:clients.none')}</p>;
  return (
    <table>
      <thead>
        <tr>
          <th scope="col">{t('adminApps:clients.field.client_id')}</th>
          <th scope="col">{t('adminApps:clients.field.client_name')}</th>
          <th scope="col">{t('adminApps:clients.field.grant_types')}</th>
          <th scope="col">{t('adminApps:common.created')}</th>
        </tr>
      </thead>
      <tbody>
        {clients.map((client) => (
          <tr>
            <td>
              <a href={viewLink(SECTION, { client: client.client_id })}>{client.client_id}</a>
            </td>
            <td>{client.client_name ?? t('adminApps:clients.unnamed')}</td>
            <td>{client.grant_types.join(', ')}</td>
            <td>{client.created_at.slice(0, 10)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** One client's page: what it is, its form, a new secret, and the way to delete it. */
function ClientPage({ context, client, form }: { context: PageContext; client: AdminClientView; form?: FormState | undefined }) {
  const { t } = context;
  const hidden = <input type="hidden" name="clientId" value={client.client_id} />;
  return (
    <>
      <h2>{t('adminApps:clients.editTitle', { clientId: client.client_id })}</h2>
      <dl>
        <dt>{t('adminApps:common.created')}</dt>
        <dd>{client.created_at}</dd>
      </dl>
      {client.previous_secret_expires_at ? (
        <p>{t('adminApps:clients.previousSecret', { time: client.previous_secret_expires_at })}</p>
      ) : null}
      <ActionForm context={context} section={SECTION} action="update" form={form} submit={t('adminApps:clients.save')}>
        {hidden}
        <SchemaFields
          fields={editFields}
          action="update"
          form={form}
          values={editValues(client)}
          t={t}
          labels="adminApps:clients.field"
          hints="adminApps:clients.hint"
          optionLabels={grantLabel(context)}
          exists={isMessageKey}
        />
      </ActionForm>
      <h2>{t('adminApps:clients.rotate')}</h2>
      <p>{t('adminApps:clients.rotateIntro')}</p>
      <ActionForm context={context} section={SECTION} action="rotate" form={form} submit={t('adminApps:clients.rotateSubmit')}>
        {hidden}
        <Field
          action="rotate"
          name="previous_secret_expires_in"
          label={t('adminApps:clients.keepPrevious')}
          form={form}
          value="86400"
          options={KEEP_PREVIOUS.map((seconds) => ({ value: seconds, label: t(`adminApps:clients.keep.${seconds}`) }))}
        />
      </ActionForm>
      <h2>{t('adminApps:clients.remove')}</h2>
      <p>
        <a href={viewLink(SECTION, { delete: client.client_id })}>{t('adminApps:clients.removeSubmit')}</a>
      </p>
      <p>
        <a href={sectionPath('admin', SECTION)}>{t('adminApps:clients.back')}</a>
      </p>
    </>
  );
}

/**
 * The client a view or a form names: the tenant's, or a 404 page (another tenant's is
 * unknown too, and so is an id no client can have).
 */
const clientOf = async (context: PageContext, clientId: string) => {
  if (!clientIdField.safeParse(clientId).success) throw new NotFoundError(CLIENT_NOT_FOUND, { code: 'CLIENT_NOT_FOUND' });
  return readClient(context.deps, context.identity, clientId);
};

/** A page showing a new secret once. */
function secretPage(context: PageContext, title: string, clientId: string, secret: string) {
  const { t } = context;
  return {
    page: (
      <>
        <ShownOnce id="client-secret" label={title} secret={secret} t={t}>
          <p>{t('adminApps:clients.secretLost')}</p>
        </ShownOnce>
        <p>
          <a href={viewLink(SECTION, { client: clientId })}>{t('adminApps:clients.editTitle', { clientId })}</a>
        </p>
        <p>
          <a href={sectionPath('admin', SECTION)}>{t('adminApps:clients.back')}</a>
        </p>
      </>
    ),
  };
}

/** A new client secret: 256 random bits (docs/api.md 4.8 asks for at least 32 characters). */
const newSecret = (context: PageContext) => context.deps.random.token(32);

export const clientsSection: Section = {
  id: SECTION,
  title: 'adminApps:clients.title',
  order: 50,
  async render(context, form) {
    const { t } = context;
    // A form come back names its client in a hidden field; a link, in the query.
    const shown = form && form.action !== 'create' ? form.values.clientId : context.query.client;
    if (shown !== undefined) return <ClientPage context={context} client={await clientOf(context, shown)} form={form} />;
    if (context.query.delete !== undefined) {
      const client = await clientOf(context, context.query.delete);
      return (
        <>
          <h2>{t('adminApps:clients.removeConfirm', { clientId: client.client_id })}</h2>
          <ConfirmDeletion
            context={context}
            section={SECTION}
            action="delete"
            target={{ clientId: client.client_id }}
            warning={t('adminApps:clients.removeWarning', { clientId: client.client_id })}
            submit={t('adminApps:clients.removeSubmit')}
            back={viewLink(SECTION, { client: client.client_id })}
          />
        </>
      );
    }
    return (
      <>
        <p>{t('adminApps:clients.intro')}</p>
        <h2>{t('adminApps:clients.list')}</h2>
        <ClientList context={context} clients={await listClients(context.deps, context.identity)} />
        <h2>{t('adminApps:clients.register')}</h2>
        <ActionForm context={context} section={SECTION} action="create" form={form} submit={t('adminApps:clients.submit')}>
          <SchemaFields
            fields={createFields}
            action="create"
            form={form}
            values={{ 'grant_types:authorization_code': true, scope: 'openid' }}
            t={t}
            labels="adminApps:clients.field"
            hints="adminApps:clients.hint"
            optionLabels={grantLabel(context)}
            exists={isMessageKey}
          />
        </ActionForm>
      </>
    );
  },
  actions: {
    create: defineAction({
      form: postedBody({
        names: namesOf(createFields),
        hidden: {},
        toBody: (form) => bodyOfForm(registration, createFields, form),
        schema: registration,
      }),
      async run(context, { body }) {
        const tenant_id = context.identity.tenantId;
        // A public client (docs/api.md 16.1) has no secret: nothing to show, its page comes next.
        if (body.token_endpoint_auth_method === 'none') {
          const client = await besideTheField(() => registerClient(context.deps, context.identity, { ...body, tenant_id }));
          return {
            flash: 'adminApps:clients.registeredPublic',
            values: { clientId: client.client_id },
            query: { client: client.client_id },
          };
        }
        const secret = newSecret(context);
        const client = await besideTheField(() =>
          registerClient(context.deps, context.identity, { ...body, client_secret: secret, tenant_id }),
        );
        return secretPage(context, context.t('adminApps:clients.registered', { clientId: client.client_id }), client.client_id, secret);
      },
    }),
    update: defineAction({
      form: postedBody({
        names: namesOf(editFields),
        hidden: { clientId: clientIdField },
        toBody: (form) => bodyOfForm(clientUpdate, editFields, form),
        schema: clientUpdate,
      }),
      async run(context, { clientId, body }) {
        const client = await besideTheField(() => updateClient(context.deps, context.identity, clientId, body));
        return { flash: 'adminApps:clients.saved', values: { clientId: client.client_id }, query: { client: client.client_id } };
      },
    }),
    rotate: defineAction({
      form: z.strictObject({
        clientId: clientIdField,
        previous_secret_expires_in: z.pipe(
          z.pipe(z.string().check(z.regex(/^\d{1,6}$/)), z.transform(Number)),
          z.number().check(z.int(), z.gte(0), z.lte(PREVIOUS_SECRET_MAX_SECONDS)),
        ),
      }),
      async run(context, { clientId, previous_secret_expires_in }) {
        const secret = newSecret(context);
        const client = await rotateClientSecret(context.deps, context.identity, clientId, {
          client_secret: secret,
          previous_secret_expires_in,
        });
        return secretPage(context, context.t('adminApps:clients.rotated', { clientId: client.client_id }), client.client_id, secret);
      },
    }),
    delete: defineAction({
      form: z.strictObject({ clientId: clientIdField }),
      async run(context, { clientId }) {
        await deleteClient(context.deps, context.identity, clientId);
        return { flash: 'adminApps:clients.removed', values: { clientId } };
      },
    }),
  },
};
