import { listShops } from '../../../admin/shops';
import { type AdminUserView, changeUser, deleteUser, listUsers, readUser, resetMfa, signOutUser } from '../../../admin/users';
import { ValidationError } from '../../../errors';
import { shopId } from '../../../http/schemas';
import { ROLES } from '../../../users/user';
import * as z from '../../../zod';
import { ActionForm, Field } from '../../form';
import { sectionPath } from '../../paths';
import { defineAction, type FormState, type PageContext, type Section } from '../../section';
import { blankAsAbsent, Pager, pageQuery, readableTime, withQuery } from '../listing';

/*
 * Staff (docs/api.md 15.3.1): the tenant's users, searched and filtered page by page, and
 * one user's page with what an ADMIN does to them. Each action calls the domain function
 * of its JSON twin (lib/admin/users.ts: PATCH, DELETE, mfa/reset, sessions of
 * /admin/users/{userId}) and is audited by it.
 */

const SECTION = 'staff';
/** The users one page of the staff list shows. */
export const PAGE_SIZE = 25;
const STATUSES = ['active', 'disabled'] as const;

/** The user an action is about: a user id as in the JSON routes' path (docs/api.md 9.2). */
const userId = z.uuid();

/** The page's query: the list's filters and page, or the user shown (with the deletion to confirm). */
const staffQuery = z.object({
  q: blankAsAbsent(z.string().check(z.trim(), z.maxLength(128))),
  role: blankAsAbsent(z.enum(ROLES)),
  status: blankAsAbsent(z.enum(STATUSES)),
  cursor: blankAsAbsent(z.string().check(z.maxLength(1024))),
  user: blankAsAbsent(userId),
  confirm: blankAsAbsent(z.literal('delete')),
});
type StaffQuery = z.output<typeof staffQuery>;

const userPage = (id: string, extra: Record<string, string> = {}) => withQuery(sectionPath('admin', SECTION), { user: id, ...extra });

/** Who the page is about: the user of the query, or of a form come back with a problem. */
function shownUser(query: StaffQuery, form: FormState | undefined): string | undefined {
  if (!form) return query.user;
  const posted = form.values.userId;
  if (posted === undefined) return undefined;
  if (!userId.safeParse(posted).success) throw new ValidationError('userId: Invalid UUID');
  return posted;
}

export const staff: Section = {
  id: SECTION,
  title: 'adminStaff:title',
  order: 10,
  async render(context, form) {
    const query = pageQuery(staffQuery, context.query);
    const id = shownUser(query, form);
    if (id === undefined) {
      const { role, status, cursor, q: search } = query;
      const page = await listUsers(context.deps, context.identity, { limit: PAGE_SIZE, cursor, role, status, search });
      return <StaffList context={context} query={query} page={page} />;
    }
    const user = await readUser(context.deps, context.identity, id);
    if (query.confirm === 'delete' && !form) return <ConfirmDelete context={context} user={user} />;
    const shops = await listShops(context.deps, context.identity);
    return <UserPage context={context} user={user} shops={shops.map((shop) => shop.shopId)} form={form} />;
  },
  actions: {
    /** PATCH /admin/users/{userId} with a role and a shop (docs/api.md 9.3). */
    'role-shop': defineAction({
      form: z.strictObject({ userId, role: z.enum(ROLES), shopId }),
      async run({ deps, identity }, { userId, role, shopId }) {
        const user = await changeUser(deps, identity, userId, { role, shopId });
        return { flash: 'adminStaff:changed', values: { username: user.username }, query: { user: user.id } };
      },
    }),
    /** PATCH /admin/users/{userId} with a status: disabling ends every session and grant (docs/api.md 9.3). */
    status: defineAction({
      form: z.strictObject({ userId, status: z.enum(STATUSES) }),
      async run({ deps, identity }, { userId, status }) {
        const user = await changeUser(deps, identity, userId, { status });
        return {
          flash: status === 'disabled' ? 'adminStaff:disabled' : 'adminStaff:enabled',
          values: { username: user.username },
          query: { user: user.id },
        };
      },
    }),
    /** POST /admin/users/{userId}/mfa/reset (docs/api.md 9.5). */
    'reset-mfa': defineAction({
      form: z.strictObject({ userId }),
      async run({ deps, identity }, { userId }) {
        const user = await readUser(deps, identity, userId);
        await resetMfa(deps, identity, userId);
        return { flash: 'adminStaff:mfaReset', values: { username: user.username }, query: { user: userId } };
      },
    }),
    /** DELETE /admin/users/{userId}/sessions (docs/api.md 9.6). */
    'sign-out': defineAction({
      form: z.strictObject({ userId }),
      async run({ deps, identity }, { userId }) {
        const user = await readUser(deps, identity, userId);
        const { revoked } = await signOutUser(deps, identity, userId);
        return { flash: 'adminStaff:signedOut', values: { username: user.username, count: String(revoked) }, query: { user: userId } };
      },
    }),
    /** DELETE /admin/users/{userId} (docs/api.md 9.4), from the confirmation page. */
    delete: defineAction({
      form: z.strictObject({ userId }),
      async run({ deps, identity }, { userId }) {
        const user = await readUser(deps, identity, userId);
        await deleteUser(deps, identity, userId);
        return { flash: 'adminStaff:deleted', values: { username: user.username } };
      },
    }),
  },
};

function StaffList({ context, query, page }: { context: PageContext; query: StaffQuery; page: Awaited<ReturnType<typeof listUsers>> }) {
  const { t, language } = context;
  const filters = { q: query.q, role: query.role, status: query.status };
  const base = sectionPath('admin', SECTION);
  return (
    <>
      <form method="get" action={base} aria-label={t('adminStaff:filters')}>
        <div class="field">
          <label for="staff-q">{t('adminStaff:search')}</label>
          <p class="hint" id="staff-q-hint">
            {t('adminStaff:searchHint')}
          </p>
          <input id="staff-q" name="q" type="search" value={query.q ?? ''} maxLength={128} aria-describedby="staff-q-hint" />
        </div>
        <div class="field">
          <label for="staff-role">{t('adminStaff:role')}</label>
          <select id="staff-role" name="role">
            <option value="">{t('adminStaff:anyRole')}</option>
            {ROLES.map((role) => (
              <option value={role} selected={role === query.role}>
                {role}
              </option>
            ))}
          </select>
        </div>
        <div class="field">
          <label for="staff-status">{t('adminStaff:status')}</label>
          <select id="staff-status" name="status">
            <option value="">{t('adminStaff:anyStatus')}</option>
            {STATUSES.map((status) => (
              <option value={status} selected={status === query.status}>
                {t(`adminStaff:statusName.${status}`)}
              </option>
            ))}
          </select>
        </div>
        <button type="submit">{t('adminStaff:show')}</button>
      </form>
      {page.users.length === 0 ? (
        <p>{t('adminStaff:none')}</p>
      ) : (
        <table aria-label={t('adminStaff:listLabel')}>
          <thead>
            <tr>
              <th scope="col">{t('adminStaff:username')}</th>
              <th scope="col">{t('adminStaff:email')}</th>
              <th scope="col">{t('adminStaff:role')}</th>
              <th scope="col">{t('adminStaff:shop')}</th>
              <th scope="col">{t('adminStaff:status')}</th>
              <th scope="col">{t('adminStaff:lastSignIn')}</th>
            </tr>
          </thead>
          <tbody>
            {page.users.map((user) => (
              <tr>
                <td>
                  <a href={userPage(user.id)}>{user.username}</a>
                </td>
                <td>{user.email ?? t('adminStaff:noEmail')}</td>
                <td>{user.role}</td>
                <td>{user.shopId}</td>
                <td>{t(`adminStaff:statusName.${user.status}`)}</td>
                <td>{user.lastLoginAt ? readableTime(user.lastLoginAt, language) : t('adminStaff:never')}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <Pager
        first={query.cursor === undefined ? undefined : withQuery(base, filters)}
        next={page.nextCursor === null ? undefined : withQuery(base, { ...filters, cursor: page.nextCursor })}
        labels={{ first: t('adminStaff:firstPage'), next: t('adminStaff:nextPage') }}
      />
    </>
  );
}

/** A form of one button about the user: the user's id travels as a hidden field. */
function UserAction(props: {
  context: PageContext;
  action: string;
  user: AdminUserView;
  form: FormState | undefined;
  submit: string;
  hint: string;
  kind?: 'secondary' | 'danger';
  confirm?: string;
  fields?: Record<string, string>;
}) {
  const { context, action, user, form, submit, hint, kind, confirm, fields = {} } = props;
  return (
    <ActionForm
      context={context}
      section={SECTION}
      action={action}
      form={form}
      submit={submit}
      kind={kind}
      confirm={confirm}
      label={submit}
    >
      <input type="hidden" name="userId" value={user.id} />
      {Object.entries(fields).map(([name, value]) => (
        <input type="hidden" name={name} value={value} />
      ))}
      <p class="hint">{hint}</p>
    </ActionForm>
  );
}

function UserPage({
  context,
  user,
  shops,
  form,
}: {
  context: PageContext;
  user: AdminUserView;
  shops: string[];
  form: FormState | undefined;
}) {
  const { t, language } = context;
  const shopOptions = [...new Set([...shops, user.shopId])].sort().map((shop) => ({ value: shop, label: shop }));
  const disabled = user.status === 'disabled';
  return (
    <>
      <p>
        <a href={sectionPath('admin', SECTION)}>{t('adminStaff:backToList')}</a>
      </p>
      <h2>{user.username}</h2>
      <dl>
        <dt>{t('adminStaff:email')}</dt>
        <dd>
          {user.email ?? t('adminStaff:noEmail')}
          {user.email && user.emailVerified ? ` (${t('adminStaff:verified')})` : ''}
        </dd>
        <dt>{t('adminStaff:status')}</dt>
        <dd>{t(`adminStaff:statusName.${user.status}`)}</dd>
        <dt>{t('adminStaff:secondFactors')}</dt>
        <dd>{user.mfaMethods.length ? user.mfaMethods.join(', ') : t('adminStaff:noSecondFactors')}</dd>
        <dt>{t('adminStaff:created')}</dt>
        <dd>{readableTime(user.createdAt, language)}</dd>
        <dt>{t('adminStaff:lastSignIn')}</dt>
        <dd>{user.lastLoginAt ? readableTime(user.lastLoginAt, language) : t('adminStaff:never')}</dd>
      </dl>
      <p>
        <a href={withQuery(sectionPath('admin', 'audit'), { user: user.id })}>{t('adminStaff:auditLink', { username: user.username })}</a>
      </p>
      <section aria-labelledby="staff-role-shop">
        <h2 id="staff-role-shop">{t('adminStaff:roleAndShop')}</h2>
        <ActionForm context={context} section={SECTION} action="role-shop" form={form} submit={t('adminStaff:saveRoleAndShop')}>
          <input type="hidden" name="userId" value={user.id} />
          <Field
            action="role-shop"
            name="role"
            label={t('adminStaff:role')}
            form={form}
            value={user.role}
            options={ROLES.map((role) => ({ value: role, label: role }))}
          />
          <Field action="role-shop" name="shopId" label={t('adminStaff:shop')} form={form} value={user.shopId} options={shopOptions} />
        </ActionForm>
      </section>
      <section aria-labelledby="staff-access">
        <h2 id="staff-access">{t('adminStaff:access')}</h2>
        <UserAction
          context={context}
          action="status"
          user={user}
          form={form}
          fields={{ status: disabled ? 'active' : 'disabled' }}
          submit={t(disabled ? 'adminStaff:enable' : 'adminStaff:disable')}
          hint={t(disabled ? 'adminStaff:enableHint' : 'adminStaff:disableHint')}
          kind={disabled ? undefined : 'danger'}
        />
        <UserAction
          context={context}
          action="sign-out"
          user={user}
          form={form}
          submit={t('adminStaff:signOut')}
          hint={t('adminStaff:signOutHint')}
          kind="secondary"
        />
        <UserAction
          context={context}
          action="reset-mfa"
          user={user}
          form={form}
          submit={t('adminStaff:resetMfa')}
          hint={t('adminStaff:resetMfaHint')}
          kind="secondary"
          confirm={t('adminStaff:resetMfaConfirm', { username: user.username })}
        />
        <p>
          <a class="button secondary" href={userPage(user.id, { confirm: 'delete' })}>
            {t('adminStaff:delete', { username: user.username })}
          </a>
        </p>
        <p class="hint">{t('adminStaff:deleteHint')}</p>
      </section>
    </>
  );
}

/** The confirmation of a deletion: a page of its own, so that it works without JavaScript. */
function ConfirmDelete({ context, user }: { context: PageContext; user: AdminUserView }) {
  const { t } = context;
  return (
    <>
      <h2>{t('adminStaff:deleteTitle', { username: user.username })}</h2>
      <p>{t('adminStaff:deleteWarning')}</p>
      <ActionForm
        context={context}
        section={SECTION}
        action="delete"
        submit={t('adminStaff:confirmDelete', { username: user.username })}
        kind="danger"
      >
        <input type="hidden" name="userId" value={user.id} />
      </ActionForm>
      <p>
        <a href={userPage(user.id)}>{t('adminStaff:cancel')}</a>
      </p>
    </>
  );
}
