import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { PAGE_SIZE } from '../../lib/console/admin/sections/invitations';
import { FILTERED_BATCH, MAX_QUERIES_A_PAGE } from '../../lib/store/index-page';
import { type App, registerAdmin } from '../helpers/app';
import { type TestDeps, uniqueTenant } from '../helpers/deps';
import { storeInvitations } from '../helpers/invitations';
import { CONSOLE_PASSWORD, type ConsoleBrowser, consoleTenant, followed, mainText } from './console-browser';

const PASSWORD = CONSOLE_PASSWORD;

/**
 * The tenant console's invitations (docs/api.md 15.3.2), in process: invite, send again,
 * revoke, each through lib/invitations/invitations.ts as POST /admin/invitations and its
 * routes, audited the same way; refusals beside the form.
 */
describe('tenant console: invitations', () => {
  let deps: TestDeps;
  let app: App;
  let tenantId: string;
  let admin: Awaited<ReturnType<typeof registerAdmin>>;
  let browser: ConsoleBrowser;

  beforeAll(async () => {
    ({ deps, app, tenantId, admin, browser } = await consoleTenant('invite-page'));
  });

  const address = (local: string) => `${local}@${tenantId}.example`;
  const links = async (email: string) =>
    (await deps.outbox.emails(email)).map((sent) => /https?:\/\/\S+\/invitations\/\S+/.exec(sent.text)?.[0]);
  const invitationOf = async (email: string) => {
    const listed = await app.request('adminListInvitations', { token: admin.token });
    return (listed.body.data.invitations as Array<{ id: string; email: string; status: string; role: string }>).find(
      (invitation) => invitation.email === email,
    );
  };

  it('invites someone with a role and shop: the email goes out, the invitation is listed and audited', async () => {
    const email = address('olga');
    const done = await followed(
      browser,
      await browser.post('invitations', 'invite', {
        email: ` OLGA@${tenantId}.example `,
        role: 'FINANCE',
        shopId: deps.config.defaultShopId,
      }),
    );
    expect(done.location).toBe('/admin/console/invitations');
    expect(mainText(done.page)).toContain(`An invitation was sent to ${email}.`);
    expect(mainText(done.page)).toMatch(new RegExp(`${email} FINANCE ${deps.config.defaultShopId} Pending`));
    expect(await links(email)).toHaveLength(1);
    const invitation = await invitationOf(email);
    expect(invitation).toMatchObject({ role: 'FINANCE', status: 'pending' });
    const audit = await app.request('adminListAudit', { token: admin.token, query: { type: 'invitation_created', limit: '1' } });
    expect(audit.body.data.events[0]).toMatchObject({
      actor: { type: 'user', id: admin.user.id },
      details: { invitationId: invitation?.id, role: 'FINANCE' },
    });
  });

  it('sends an invitation again with a new link, the old one dead, and revokes it', async () => {
    const email = address('paul');
    await browser.post('invitations', 'invite', { email, role: 'OPERATOR', shopId: deps.config.defaultShopId });
    const invitation = await invitationOf(email);
    const resent = await followed(browser, await browser.post('invitations', 'resend', { id: invitation?.id ?? '' }));
    expect(mainText(resent.page)).toContain(`A new link was sent to ${email}; the old one no longer works.`);
    const [first, second] = await links(email);
    expect(second).not.toBe(first);
    expect(
      (await app.request('hostedInvitationPage', { method: 'GET', pathParameters: { token: first?.split('/invitations/')[1] ?? '' } }))
        .status,
    ).toBe(400);
    const revoked = await followed(browser, await browser.post('invitations', 'revoke', { id: invitation?.id ?? '' }));
    expect(mainText(revoked.page)).toContain(`The invitation to ${email} was revoked.`);
    expect(mainText(revoked.page)).not.toContain(`${email} OPERATOR`);
    expect(await invitationOf(email)).toMatchObject({ status: 'revoked' });
  });

  it.each([
    [{ email: 'not an address', role: 'OPERATOR' }, 'email', 'Enter an email address like name@example.com.'],
    [{ email: 'rita@example.com', role: 'KING' }, 'role', 'Choose one of the options.'],
  ])('refuses the form %j with the error beside its field, sending nothing', async (fields, field, message) => {
    const refused = await browser.post('invitations', 'invite', { shopId: deps.config.defaultShopId, ...fields });
    expect(refused.status).toBe(400);
    expect(String(refused.body)).toContain(`id="invite-${field}-error"`);
    expect(mainText(refused)).toContain(message);
    expect(await deps.outbox.emails('rita@example.com')).toEqual([]);
  });

  it('refuses an address invited already, a member’s address and an unknown shop beside the form, in the page’s language', async () => {
    const email = address('sara');
    await browser.post('invitations', 'invite', { email, role: 'OPERATOR', shopId: deps.config.defaultShopId });
    const again = await browser.post('invitations', 'invite', { email, role: 'OPERATOR', shopId: deps.config.defaultShopId });
    expect(again.status).toBe(409);
    expect(mainText(again)).toContain('An invitation to this address is already pending.');
    expect(String(again.body)).toContain(`value="${email}"`);
    const german = await browser.post(
      'invitations',
      'invite',
      { email, role: 'OPERATOR', shopId: deps.config.defaultShopId },
      { 'accept-language': 'de' },
    );
    expect(mainText(german)).toContain('Eine Einladung an diese Adresse ist bereits offen.');
    await app.request('register', {
      token: admin.token,
      body: { username: 'tom', password: PASSWORD, role: 'OPERATOR', tenantId, email: address('tom') },
    });
    const member = await browser.post('invitations', 'invite', {
      email: address('tom'),
      role: 'OPERATOR',
      shopId: deps.config.defaultShopId,
    });
    expect(member.status).toBe(409);
    expect(mainText(member)).toContain('Someone in this tenant already has this email address.');
    const shop = await browser.post('invitations', 'invite', { email: address('uma'), role: 'OPERATOR', shopId: 'no-such-shop' });
    expect(shop.status).toBe(400);
    expect(await links(address('uma'))).toEqual([]);
    expect(await links(email)).toHaveLength(1);
  });

  it('shows the open invitations a page at a time, newest first, with links to the next and the first page', async () => {
    const own = await consoleTenant('invite-page-pages');
    const created: string[] = [];
    for (let i = 0; i < PAGE_SIZE + 2; i++) {
      const invited = await own.app.request('adminCreateInvitation', {
        token: own.admin.token,
        body: { email: `page${i}@${own.tenantId}.example`, role: 'OPERATOR' },
      });
      expect(invited.status).toBe(201);
      created.push(invited.body.data.invitation.email);
    }
    const listed = await own.app.request('adminListInvitations', { token: own.admin.token, query: { limit: '1' } });
    const newest = listed.body.data.invitations[0];
    expect((await own.browser.post('invitations', 'revoke', { id: newest.id })).status).toBe(303);
    const first = await own.browser.page('invitations');
    const shown = (page: typeof first) => created.filter((email) => mainText(page).includes(`${email} OPERATOR`));
    expect(shown(first)).toHaveLength(PAGE_SIZE);
    expect(mainText(first)).not.toContain('First page');
    const next = /<a class="button secondary" href="([^"]+)" rel="next">/.exec(String(first.body))?.[1]?.replace(/&amp;/g, '&') ?? '';
    const cursor = new URL(next, 'https://console.test').searchParams.get('cursor') ?? '';
    const second = await own.browser.page('invitations', { cursor });
    expect(shown(second)).toHaveLength(1);
    expect(new Set([...shown(first), ...shown(second), newest.email])).toEqual(new Set(created));
    expect(mainText(second)).toContain('First page');
    expect(String(second.body)).not.toContain('rel="next"');
  });

  it('says a page read no open invitation, not that there is none, when a next page goes on', async () => {
    const own = await consoleTenant('invite-page-closed');
    const expiresAt = Math.floor(own.deps.clock.now() / 1000) + 24 * 3600;
    // The open invitation is the oldest, behind more closed ones than one page reads.
    const [open] = await storeInvitations(own.deps.dynamo, own.tenantId, [
      { seconds: 0, status: 'pending', expiresAt },
      ...Array.from({ length: MAX_QUERIES_A_PAGE * FILTERED_BATCH }, (_, i) => ({ seconds: i + 1, status: 'revoked' as const, expiresAt })),
    ]);
    const first = await own.browser.page('invitations');
    expect(mainText(first)).toContain('No open invitations among the ones read for this page; the next page reads on.');
    expect(mainText(first)).not.toContain('No open invitations.');
    const next = /<a class="button secondary" href="([^"]+)" rel="next">/.exec(String(first.body))?.[1]?.replace(/&amp;/g, '&') ?? '';
    const second = await own.browser.page('invitations', {
      cursor: new URL(next, 'https://console.test').searchParams.get('cursor') ?? '',
    });
    expect(mainText(second)).toContain(`${open}@${own.tenantId}.example ANALYST`);
    expect(String(second.body)).not.toContain('rel="next"');
  });

  it('answers an invitation of another tenant or unknown with 404, changing nothing', async () => {
    const other = uniqueTenant('invite-other');
    const stranger = await registerAdmin(app, other, 'stranger', PASSWORD);
    const theirs = await app.request('adminCreateInvitation', {
      token: stranger.token,
      body: { email: `vera@${other}.example`, role: 'OPERATOR' },
    });
    const id = theirs.body.data.invitation.id as string;
    for (const action of ['resend', 'revoke']) {
      const refused = await browser.post('invitations', action, { id });
      expect(refused.status, action).toBe(404);
      expect(mainText(refused)).toContain('There is no such invitation.');
      expect((await browser.post('invitations', action, { id: randomUUID() })).status).toBe(404);
    }
    const listed = await app.request('adminListInvitations', { token: stranger.token });
    expect(listed.body.data.invitations).toEqual([expect.objectContaining({ id, status: 'pending' })]);
    expect(await deps.outbox.emails(`vera@${other}.example`)).toHaveLength(1);
  });
});
