import type { Notification } from '../mfa/delivery';

/**
 * The security events a user is told about (docs/api.md 8.9). Each names what happened,
 * never a secret: a method name, a masked address at most.
 */
export type SecurityEvent =
  | { kind: 'password-changed' }
  | { kind: 'password-reset' }
  | { kind: 'mfa-added'; method: string }
  | { kind: 'mfa-removed'; method: string }
  | { kind: 'mfa-locked'; method: string }
  | { kind: 'recovery-codes-generated' }
  | { kind: 'recovery-codes-used'; remaining: number }
  | { kind: 'account-locked' }
  /** Sent to the old address; `to` is the new one, masked. */
  | { kind: 'email-changed'; to: string };

const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
/** Text made safe for an HTML element or attribute. */
export const escapeHtml = (value: string) => value.replace(/[&<>"']/g, (character) => ENTITIES[character] ?? character);

const NOT_YOU = 'If this was not you, reset your password now and contact your administrator.';

/** Subject and sentences of each event. */
function wording(event: SecurityEvent): { subject: string; lines: string[] } {
  switch (event.kind) {
    case 'password-changed':
      return { subject: 'Your password was changed', lines: ['The password of your account was changed.', NOT_YOU] };
    case 'password-reset':
      return {
        subject: 'Your password was reset',
        lines: ['The password of your account was reset with a reset code. Every session was signed out.', NOT_YOU],
      };
    case 'mfa-added':
      return { subject: 'A sign-in method was added', lines: [`A ${event.method} second factor was added to your account.`, NOT_YOU] };
    case 'mfa-removed':
      return {
        subject: 'A sign-in method was removed',
        lines: [`The ${event.method} second factor was removed from your account.`, NOT_YOU],
      };
    case 'mfa-locked':
      return {
        subject: 'A sign-in method was locked',
        lines: [
          `Your ${event.method} second factor was locked after too many wrong codes. Enrol it again, or ask your administrator to reset it.`,
          'Someone may know your password: change it.',
        ],
      };
    case 'recovery-codes-generated':
      return {
        subject: 'New recovery codes',
        lines: ['New recovery codes were made for your account; the earlier ones no longer work.', NOT_YOU],
      };
    case 'recovery-codes-used':
      return {
        subject: 'A recovery code was used',
        lines: [`A recovery code was used to sign in to your account; ${event.remaining} remain.`, NOT_YOU],
      };
    case 'account-locked':
      return {
        subject: 'Sign-in blocked after failed attempts',
        lines: ['Several sign-in attempts with a wrong password were made; sign-in is blocked for 15 minutes.', NOT_YOU],
      };
    case 'email-changed':
      return {
        subject: 'Your email address is being changed',
        lines: [
          `The email address of your account is being changed to ${event.to}. Notifications will go there once it is confirmed.`,
          NOT_YOU,
        ],
      };
  }
}

/** The email of an event: plain text and simple HTML of the same sentences, every value escaped. */
export function renderNotification(event: SecurityEvent, issuer: string, at: Date): Notification {
  const { subject, lines } = wording(event);
  const when = `${at.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
  const all = [...lines, `Time: ${when}.`];
  const text = `${all.join('\n\n')}\n\n${issuer}`;
  const html = `<!doctype html><html><body>${all.map((line) => `<p>${escapeHtml(line)}</p>`).join('')}<p>${escapeHtml(issuer)}</p></body></html>`;
  return { event: event.kind, subject: `${issuer}: ${subject}`, text, html };
}
