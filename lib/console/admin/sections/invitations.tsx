import { listShops } from '../../../admin/shops';
import { readTenant } from '../../../admin/tenant';
import { emailAddress, shopId } from '../../../http/schemas';
import {
  createInvitation,
  type InvitationView,
  listInvitations,
  resendInvitation,
  revokeInvitation,
} from '../../../invitations/invitations';
import { ROLES } from '../../../users/user';
import * as z from '../../../zod';
import { ActionForm, Field } from '../../form';
import { sectionPath } from '../../paths';
import { defineAction, type FormState, type PageContext, type Section } from '../../section';
import { blankAsAbsent, Pager, pageQuery, readableTime, withQuery } from '../listing';

/*
 * Invitations (docs/api.md 15.3.2): the open ones (pending, or expired and so still to be
 * sent again), each to send again or revoke, and the form that invites someone. Each action
 * calls the domain function of its JSON twin (lib/invitations/invitations.ts, docs/api.md
 * 13.1) and is audited by it.
 */

const SECTION = 'invitations';

/** An invitation is named by its id, as in the JSON routes' path (any other id: 404 `Invitation not found`). */
const invitationId = z.string().check(z.minLength(1), z.maxLength(64));

/** A flash message's value is at most 200 characters (lib/console/flash.ts); an address is at most 254. */
const shortened = (text: string) => (text.length <= 200 ? text : `${text.slice(0, 199)}…`);

/** The open invitations one page shows. */
export const PAGE_SIZE = 25;

/** The page's query: the page of open invitations. */
const invitationsQuery = z.object({ cursor: blankAsAbsent(z.string().check(z.maxLength(1024))) });

export const invitations: Section = {
  id: SECTION,
  title: 'adminInvitations:title',
  order: 20,
  async render(context, form) {
    const { cursor } = pageQuery(invitationsQuery, context.query);
    const [open, shops, tenant] = await Promise.all([
      listInvitations(context.deps, context.identity, { status: 'open', limit: PAGE_SIZE, cursor }),
      listShops(context.deps, context.identity),
      readTenant(context.deps, context.identity),
    ]);
    const shopIds = [...new Set([...shops.map((shop) => shop.shopId), tenant.defaultShopId])].sort();
    return (
      <InvitationsPage
        context={context}
        open={open}
        firstPage={cursor === undefined}
        shops={shopIds}
        defaultShop={tenant.defaultShopId}
        form={form}
      />
    );
  },
  actions: {
    /** POST /admin/invitations (docs/api.md 13.1): the JSON body's fields but the username, which the invitee chooses. */
    invite: defineAction({
      form: z.strictObject({ email: emailAddress, role: z.enum(ROLES), shopId }),
      async run({ deps, identity }, input) {
        const invitation = await createInvitation(deps, identity, input);
        return { flash: 'adminInvitations:sent', values: { email: shortened(invitation.email) } };
      },
    }),
    /** POST /admin/invitations/{id}/resend (docs/api.md 13.1). */
    resend: defineAction({
      form: z.strictObject({ id: invitationId }),
      async run({ deps, identity }, { id }) {
        const invitation = await resendInvitation(deps, identity, id);
        return { flash: 'adminInvitations:resent', values: { email: shortened(invitation.email) } };
      },
    }),
    /** DELETE /admin/invitations/{id} (docs/api.md 13.1). */
    revoke: defineAction({
      form: z.strictObject({ id: invitationId }),
      async run({ deps, identity }, { id }) {
        const invitation = await revokeInvitation(deps, identity, id);
        return { flash: 'adminInvitations:revoked', values: { email: shortened(invitation.email) } };
      },
    }),
  },
};

function InvitationsPage(props: {
  context: PageContext;
  /** A page of the open invitations (pending or expired). */
  open: { invitations: InvitationView[]; nextCursor: string | null };
  firstPage: boolean;
  shops: string[];
  defaultShop: string;
  form: FormState | undefined;
}) {
  const { context, open, firstPage, shops, defaultShop, form } = props;
  const base = sectionPath('admin', SECTION);
  const { t, language } = context;
  const failed = form && form.action !== 'invite' ? form : undefined;
  return (
    <>
      <section aria-labelledby="invitations-open">
        <h2 id="invitations-open">{t('adminInvitations:open')}</h2>
        {failed?.problem ? (
          <div class="summary" role="alert">
            <p>{failed.problem}</p>
          </div>
        ) : null}
        {open.invitations.length === 0 ? (
          // A page reads a bounded part of the list: an empty one with a next page only says that part holds none.
          <p>{t(open.nextCursor === null ? 'adminInvitations:none' : 'adminInvitations:noneHere')}</p>
        ) : (
          <table aria-labelledby="invitations-open">
            <thead>
              <tr>
                <th scope="col">{t('adminInvitations:email')}</th>
                <th scope="col">{t('adminInvitations:role')}</th>
                <th scope="col">{t('adminInvitations:shop')}</th>
                <th scope="col">{t('adminInvitations:status')}</th>
                <th scope="col">{t('adminInvitations:expiresAt')}</th>
                <th scope="col">{t('adminInvitations:actions')}</th>
              </tr>
            </thead>
            <tbody>
              {open.invitations.map((invitation) => (
                <tr>
                  <td>{invitation.email}</td>
                  <td>{invitation.role}</td>
                  <td>{invitation.shopId}</td>
                  <td>{t(`adminInvitations:statusName.${invitation.status}`)}</td>
                  <td>{readableTime(invitation.expiresAt, language)}</td>
                  <td>
                    <InvitationAction context={context} action="resend" invitation={invitation} kind="secondary" />
                    <InvitationAction context={context} action="revoke" invitation={invitation} kind="danger" />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
        <Pager
          first={firstPage ? undefined : base}
          next={open.nextCursor === null ? undefined : withQuery(base, { cursor: open.nextCursor })}
          labels={{ first: t('adminInvitations:firstPage'), next: t('adminInvitations:nextPage') }}
        />
      </section>
      <section aria-labelledby="invitations-invite">
        <h2 id="invitations-invite">{t('adminInvitations:invite')}</h2>
        <p class="hint">{t('adminInvitations:inviteHint')}</p>
        <ActionForm context={context} section={SECTION} action="invite" form={form} submit={t('adminInvitations:send')}>
          <Field
            action="invite"
            name="email"
            type="email"
            label={t('adminInvitations:email')}
            form={form}
            autocomplete="off"
            required
            maxLength={254}
          />
          <Field
            action="invite"
            name="role"
            label={t('adminInvitations:role')}
            form={form}
            value="OPERATOR"
            options={ROLES.map((role) => ({ value: role, label: role }))}
          />
          <Field
            action="invite"
            name="shopId"
            label={t('adminInvitations:shop')}
            form={form}
            value={defaultShop}
            options={shops.map((shop) => ({ value: shop, label: shop }))}
          />
        </ActionForm>
      </section>
    </>
  );
}

/** Send again or revoke: one button, its accessible name naming the address. */
function InvitationAction({
  context,
  action,
  invitation,
  kind,
}: {
  context: PageContext;
  action: 'resend' | 'revoke';
  invitation: InvitationView;
  kind: 'secondary' | 'danger';
}) {
  const { t } = context;
  const name = t(action === 'resend' ? 'adminInvitations:resendLabel' : 'adminInvitations:revokeLabel', { email: invitation.email });
  return (
    <ActionForm
      context={context}
      section={SECTION}
      action={action}
      label={name}
      confirm={action === 'revoke' ? t('adminInvitations:revokeConfirm', { email: invitation.email }) : undefined}
    >
      <input type="hidden" name="id" value={invitation.id} />
      <button type="submit" class={kind} aria-label={name}>
        {t(action === 'resend' ? 'adminInvitations:resend' : 'adminInvitations:revoke')}
      </button>
    </ActionForm>
  );
}
