import type { Deps } from '../deps';
import { tenantName } from '../hosted/tenant-name';
import type { Notification } from '../mfa/delivery';
import { escapeHtml } from '../notifications/messages';
import type { Invitation } from '../store/invitations';

/**
 * The invitation email (docs/api.md 13.1): who invites, to what role, the absolute link
 * and when it expires, as plain text and simple HTML, every value escaped.
 */
export async function invitationEmail(
  deps: Pick<Deps, 'config' | 'store'>,
  invitation: Pick<Invitation, 'tenantId' | 'role' | 'expiresAt'>,
  link: string,
): Promise<Notification> {
  const issuer = deps.config.mfa.totpIssuer;
  const tenant = await tenantName(deps, invitation.tenantId);
  const expires = `${new Date(invitation.expiresAt * 1000).toISOString().slice(0, 16).replace('T', ' ')} UTC`;
  const lines = [
    `You are invited to join ${tenant} as ${invitation.role}.`,
    'Open this link to choose your username and how you sign in (a password or a passkey):',
  ];
  const after = [`The link works once and expires on ${expires}.`, 'If you did not expect this invitation, ignore this email.'];
  const text = `${[...lines, link, ...after].join('\n\n')}\n\n${issuer}`;
  const html = `<!doctype html><html><body>${lines.map((line) => `<p>${escapeHtml(line)}</p>`).join('')}<p><a href="${escapeHtml(link)}">${escapeHtml(link)}</a></p>${after.map((line) => `<p>${escapeHtml(line)}</p>`).join('')}<p>${escapeHtml(issuer)}</p></body></html>`;
  return { event: 'invitation', subject: `${issuer}: You are invited to ${tenant}`, text, html };
}
