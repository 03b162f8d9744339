import { listSessions, revokeSession, signOutOtherSessions } from '../../../sessions/user-sessions';
import * as z from '../../../zod';
import { formatTime } from '../../dates';
import { ActionForm } from '../../form';
import { defineAction, type Section } from '../../section';

/** The sessions (docs/api.md 15.2, 8.3): where the user is signed in, each signed out on its own or all others at once. */
export const sessions: Section = {
  id: 'sessions',
  title: 'accountSessions:title',
  order: 40,
  async render(context, form) {
    const { deps, identity, t, language } = context;
    const listed = (await listSessions(deps, identity)).sessions;
    return (
      <>
        <p>{t('accountSessions:intro')}</p>
        <ul class="cards">
          {listed.map((session) => (
            <li>
              <p>
                <strong>{session.userAgent ?? t('accountSessions:unknownDevice')}</strong>
                {session.current ? ` (${t('accountSessions:current')})` : ''}
              </p>
              <dl>
                <dt>{t('accountSessions:address')}</dt>
                <dd>{session.ipAddress ?? '–'}</dd>
                <dt>{t('accountSessions:signedIn')}</dt>
                <dd>{formatTime(session.createdAt, language)}</dd>
                <dt>{t('accountSessions:lastUsed')}</dt>
                <dd>{formatTime(session.lastUsedAt, language)}</dd>
              </dl>
              {session.current ? null : (
                <ActionForm
                  context={context}
                  section="sessions"
                  action="revoke"
                  form={form}
                  submit={t('accountSessions:signOut')}
                  kind="secondary"
                  confirm={t('accountSessions:signOutConfirm')}
                  label={`${t('accountSessions:signOut')}: ${session.userAgent ?? t('accountSessions:unknownDevice')}`}
                >
                  <input type="hidden" name="sessionId" value={session.id} />
                </ActionForm>
              )}
            </li>
          ))}
        </ul>
        {listed.length > 1 ? (
          <ActionForm
            context={context}
            section="sessions"
            action="revoke-others"
            submit={t('accountSessions:signOutOthers')}
            kind="danger"
            confirm={t('accountSessions:signOutOthersConfirm')}
          />
        ) : null}
      </>
    );
  },
  actions: {
    // DELETE /auth/sessions/{sessionId} (8.3): another user's session is not found.
    revoke: defineAction({
      form: z.strictObject({ sessionId: z.string().check(z.minLength(1), z.maxLength(128)) }),
      async run(context, { sessionId }) {
        await revokeSession(context.deps, context.identity, sessionId);
        return { flash: 'accountSessions:signedOut' };
      },
    }),
    // DELETE /auth/sessions (8.3).
    'revoke-others': defineAction({
      form: z.strictObject({}),
      async run(context) {
        const { revoked } = await signOutOtherSessions(context.deps, context.identity);
        return { flash: 'accountSessions:othersSignedOut', values: { count: String(revoked) } };
      },
    }),
  },
};
