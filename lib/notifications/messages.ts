import type { Notification } from '../mfa/delivery';

/**
 * The security events a user is told about (docs/api.md 8.9). Each names what happened,
 * never a secret: a method name, a masked address at most.
 */
export type SecurityEvent =
  | { kind: 'password-changed' }
  /** The user's passkeys at the reset (docs/api.md 8.7): kept (they still sign in), or removed with it. */
  | { kind: 'password-reset'; passkeys?: PasskeyMention[]; passkeysRemoved?: boolean }
  | { kind: 'mfa-added'; method: string }
  | { kind: 'mfa-removed'; method: string }
  | { kind: 'mfa-locked'; method: string }
  | { kind: 'recovery-codes-generated' }
  | { kind: 'recovery-codes-used'; remaining: number }
  | { kind: 'account-locked' }
  | { kind: 'passkey-added'; passkey: PasskeyMention }
  | { kind: 'passkey-removed'; passkey: PasskeyMention }
  /** Sent to the old address; `to` is the new one, masked. */
  | { kind: 'email-changed'; to: string };

/** A passkey as a notification names it: its name and the day it was added (docs/api.md 12.3). */
export interface PasskeyMention {
  name: string;
  /** ISO 8601. */
  createdAt: string;
}

const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
/** Text made safe for an HTML element or attribute. */
export const escapeHtml = (value: string) => value.replace(/[&<>"']/g, (character) => ENTITIES[character] ?? character);

const NOT_YOU = 'If this was not you, reset your password now and contact your administrator.';

/**
 * A passkey by its name (chosen by whoever added it: control and format characters become
 * spaces, so that a name cannot start lines of its own) and the day it was added.
 */
const mention = ({ name, createdAt }: PasskeyMention) => `“${name.replace(/[\p{Cc}\p{Cf}]/gu, ' ')}” (added ${createdAt.slice(0, 10)})`;

/** What a reset says of the user's passkeys (docs/api.md 8.7): a passkey signs in without the password. */
function passkeysAtReset(passkeys: PasskeyMention[], removed: boolean): string[] {
  if (passkeys.length === 0) return [];
  const listed = passkeys.map(mention).join(', ');
  return removed
    ? [`Your passkeys were removed with the reset: ${listed}. Add yours again once you are signed in.`]
    : [
        `These passkeys still sign in to your account without the password: ${listed}.`,
        'If you do not know one of them, sign in and remove it from your passkeys, or reset your password again and choose to remove every passkey.',
      ];
}

/** Subject and sentences of each event. */
function wording(event: SecurityEvent): { subject: string; lines: string[] } {
  switch (event.kind) {
    case 'password-changed':
      return { subject: 'Your password was changed', lines: ['The password of your account was changed.', NOT_YOU] };
    case 'password-reset':
      return {
        subject: 'Your password was reset',
        lines: [
          'The password of your account was reset with a reset code. Every session was signed out.',
          ...passkeysAtReset(event.passkeys ?? [], event.passkeysRemoved === true),
          NOT_YOU,
        ],
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
    case 'passkey-added':
      return {
        subject: 'A passkey was added',
        lines: [`The passkey ${mention(event.passkey)} was added to your account. It signs in without your password.`, NOT_YOU],
      };
    case 'passkey-removed':
      return { subject: 'A passkey was removed', lines: [`The passkey ${mention(event.passkey)} was removed from your account.`, NOT_YOU] };
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
