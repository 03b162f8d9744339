import { AUDIT_EVENT_TYPES, type AuditEvent } from '../../../audit/events';
import { listEvents } from '../../../audit/trail';
import * as z from '../../../zod';
import { sectionPath } from '../../paths';
import type { PageContext, Section } from '../../section';
import { blankAsAbsent, Pager, pageQuery, readableTime, withQuery } from '../listing';

/*
 * The audit trail (docs/api.md 15.3.3): the tenant's events, newest first, filtered by type
 * and by the user they are about, page by page (GET /admin/audit's listEvents). Everything an
 * event holds (usernames, user agents, details) is text the page escapes.
 */

const SECTION = 'audit';
const PAGE_SIZE = 25;

const auditQuery = z.object({
  type: blankAsAbsent(z.enum(AUDIT_EVENT_TYPES)),
  /** A user id as GET /admin/audit takes it, or a username of the tenant. */
  user: blankAsAbsent(z.string().check(z.trim(), z.maxLength(128))),
  cursor: blankAsAbsent(z.string().check(z.maxLength(1024))),
});
type AuditQuery = z.output<typeof auditQuery>;

const isUserId = (value: string) => z.uuid().safeParse(value).success;

/** The user id the filter names: itself, or the id of the tenant's user of that username; null for nobody. */
async function userIdOf(context: PageContext, user: string | undefined): Promise<string | null | undefined> {
  if (user === undefined || isUserId(user)) return user;
  const found = await context.deps.store.users.findByUsername(context.identity.tenantId, user);
  return found ? found.id : null;
}

/** The usernames of the users a page of events names (deleted ones have none). */
async function usernamesOf(context: PageContext, events: AuditEvent[]): Promise<Map<string, string>> {
  const ids = new Set<string>();
  for (const event of events) {
    if (event.actor.type === 'user' && event.actor.id) ids.add(event.actor.id);
    if (event.targetUserId) ids.add(event.targetUserId);
  }
  const found = await Promise.all([...ids].map((id) => context.deps.store.users.findById(context.identity.tenantId, id)));
  return new Map(found.flatMap((user) => (user ? [[user.id, user.username] as const] : [])));
}

export const audit: Section = {
  id: SECTION,
  title: 'adminAudit:title',
  order: 80,
  async render(context) {
    const query = pageQuery(auditQuery, context.query);
    const userId = await userIdOf(context, query.user);
    if (userId === null) return <AuditPage context={context} query={query} unknownUser />;
    const page = await listEvents(context.deps, context.identity, { limit: PAGE_SIZE, cursor: query.cursor, type: query.type, userId });
    const usernames = await usernamesOf(context, page.events);
    return <AuditPage context={context} query={query} page={page} usernames={usernames} />;
  },
  actions: {},
};

interface AuditPageProps {
  context: PageContext;
  query: AuditQuery;
  page?: Awaited<ReturnType<typeof listEvents>>;
  usernames?: Map<string, string>;
  unknownUser?: boolean;
}

function AuditPage({ context, query, page, usernames = new Map(), unknownUser }: AuditPageProps) {
  const { t, language } = context;
  const base = sectionPath('admin', SECTION);
  const filters = { type: query.type, user: query.user };
  const person = (id: string | null) => {
    if (id === null) return t('adminAudit:nobody');
    const username = usernames.get(id);
    return username === undefined ? (
      t('adminAudit:deletedUser', { id })
    ) : (
      <a href={withQuery(sectionPath('admin', 'staff'), { user: id })}>{username}</a>
    );
  };
  const actor = (event: AuditEvent) =>
    event.actor.type === 'user' ? (
      event.actor.id === null ? (
        t('adminAudit:unknownActor')
      ) : (
        person(event.actor.id)
      )
    ) : (
      <>
        {t(`adminAudit:actorType.${event.actor.type}`)}
        {event.actor.id ? ` ${event.actor.id}` : ''}
      </>
    );
  return (
    <>
      <form method="get" action={base} aria-label={t('adminAudit:filters')}>
        <div class="field">
          <label for="audit-type">{t('adminAudit:type')}</label>
          <select id="audit-type" name="type">
            <option value="">{t('adminAudit:anyType')}</option>
            {AUDIT_EVENT_TYPES.map((type) => (
              <option value={type} selected={type === query.type}>
                {type}
              </option>
            ))}
          </select>
        </div>
        <div class="field">
          <label for="audit-user">{t('adminAudit:user')}</label>
          <p class="hint" id="audit-user-hint">
            {t('adminAudit:userHint')}
          </p>
          {unknownUser ? (
            <p class="field-error" id="audit-user-error">
              {t('adminAudit:unknownUser')}
            </p>
          ) : null}
          <input
            id="audit-user"
            name="user"
            value={query.user ?? ''}
            maxLength={128}
            autocomplete="off"
            aria-describedby={unknownUser ? 'audit-user-hint audit-user-error' : 'audit-user-hint'}
            aria-invalid={unknownUser ? 'true' : undefined}
          />
        </div>
        <button type="submit">{t('adminAudit:show')}</button>
      </form>
      {page === undefined ? null : page.events.length === 0 ? (
        <p>{t('adminAudit:none')}</p>
      ) : (
        <table aria-label={t('adminAudit:listLabel')}>
          <thead>
            <tr>
              <th scope="col">{t('adminAudit:time')}</th>
              <th scope="col">{t('adminAudit:event')}</th>
              <th scope="col">{t('adminAudit:actor')}</th>
              <th scope="col">{t('adminAudit:target')}</th>
              <th scope="col">{t('adminAudit:source')}</th>
              <th scope="col">{t('adminAudit:details')}</th>
            </tr>
          </thead>
          <tbody>
            {page.events.map((event) => (
              <tr>
                <td>
                  <time dateTime={event.time}>{readableTime(event.time, language)}</time>
                </td>
                <td>
                  <code>{event.type}</code> ({t(`adminAudit:outcomeName.${event.outcome}`)})
                </td>
                <td>{actor(event)}</td>
                <td>{person(event.targetUserId)}</td>
                <td>
                  {event.ipAddress ?? ''}
                  {event.userAgent ? (
                    <>
                      <br />
                      <small>{event.userAgent}</small>
                    </>
                  ) : null}
                </td>
                <td>
                  <Details details={event.details} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {page === undefined ? null : (
        <Pager
          first={query.cursor === undefined ? undefined : withQuery(base, filters)}
          next={page.nextCursor === null ? undefined : withQuery(base, { ...filters, cursor: page.nextCursor })}
          labels={{ first: t('adminAudit:newest'), next: t('adminAudit:older') }}
        />
      )}
    </>
  );
}

/** An event's details as `name: value` lines of text. */
function Details({ details }: { details: AuditEvent['details'] }) {
  const entries = Object.entries(details).filter(([, value]) => value !== undefined);
  if (entries.length === 0) return null;
  return (
    <ul class="details">
      {entries.map(([name, value]) => (
        <li>
          {name}: {Array.isArray(value) ? value.join(', ') : String(value)}
        </li>
      ))}
    </ul>
  );
}
