import type { SESv2Client } from '@aws-sdk/client-sesv2';
import type { SNSClient } from '@aws-sdk/client-sns';
import type * as z from 'zod/mini';
import type { Clock } from '../clock';
import { epochSeconds } from '../clock';
import type { Logger } from '../log';
import type { Account } from './account';
import { CODE_TTL_SECONDS } from './codes';
import { maskDestination } from './masking';
import type { DeliveredMethod } from './methods';
import type { outboxCodeSchema, outboxEmailSchema, outboxNotificationSchema } from './outbox-records';

/** What a one-time code is for: a second factor, a password reset, an email address to verify. */
export type CodePurpose = 'mfa' | 'reset' | 'verify-email';

/** A one-time code on its way to a user. */
export interface CodeMessage {
  tenantId: string;
  userId: string;
  method: DeliveredMethod;
  /** E.164 phone number (SMS) or email address (EMAIL). */
  destination: string;
  code: string;
  /** `mfa` when absent. */
  purpose?: CodePurpose | undefined;
}

/** A security notification (docs/api.md 8.9): plain text and simple HTML, never a secret. */
export interface Notification {
  /** What happened, e.g. `password-changed` (lib/notifications/notify.ts). */
  event: string;
  subject: string;
  text: string;
  html: string;
}

/** A notification on its way to a user's verified email address. */
export interface NotificationMessage {
  tenantId: string;
  userId: string;
  method: 'EMAIL';
  destination: string;
  notification: Notification;
}

/** An invitation email (docs/api.md 13.1): to someone who has no account yet, with the link to accept it. */
export interface InvitationMessage {
  tenantId: string;
  invitationId: string;
  method: 'EMAIL';
  destination: string;
  notification: Notification;
}

/** Everything the delivery port carries: a code, a notification, or an invitation. */
export type DeliveryMessage = CodeMessage | NotificationMessage | InvitationMessage;

/**
 * The delivery port (docs/api.md 4.4, 8.9): Amazon SNS and SES in AWS, the outbox
 * locally. It carries one-time codes and security notifications alike, so that the
 * send quotas (lib/abuse/send-quota.ts) count every message.
 */
export interface CodeDelivery {
  send(message: DeliveryMessage): Promise<void>;
}

const minutes = CODE_TTL_SECONDS / 60;

function text(issuer: string, code: string, purpose: CodePurpose = 'mfa'): string {
  switch (purpose) {
    case 'mfa':
      return `${code} is your ${issuer} verification code. It expires in ${minutes} minutes. Do not share it.`;
    case 'reset':
      return `${code} is your ${issuer} password reset code. It expires in ${minutes} minutes. Do not share it. If you did not ask to reset your password, ignore this message.`;
    case 'verify-email':
      return `${code} is your ${issuer} code to confirm this email address. It expires in ${minutes} minutes. Do not share it.`;
  }
}

const SUBJECTS: Record<CodePurpose, (issuer: string) => string> = {
  mfa: (issuer) => `Your ${issuer} verification code`,
  reset: (issuer) => `Your ${issuer} password reset code`,
  'verify-email': (issuer) => `Confirm your email address for ${issuer}`,
};

// The SDK packages are imported on first send, so functions that never send keep their cold start.
type SnsClient = Pick<SNSClient, 'send'>;
type SesClient = Pick<SESv2Client, 'send'>;

/** Text messages through Amazon SNS (direct publish to a phone number, transactional). */
export function snsDelivery(client: SnsClient, issuer: string): CodeDelivery {
  return {
    async send(message) {
      const { PublishCommand } = await import('@aws-sdk/client-sns');
      await client.send(
        new PublishCommand({
          PhoneNumber: message.destination,
          Message: 'notification' in message ? message.notification.text : text(issuer, message.code, message.purpose),
          MessageAttributes: { 'AWS.SNS.SMS.SMSType': { DataType: 'String', StringValue: 'Transactional' } },
        }),
      );
    },
  };
}

/** Email through Amazon SES v2 from a verified sender address. */
export function sesDelivery(client: SesClient, from: string, issuer: string): CodeDelivery {
  return {
    async send(message) {
      const { SendEmailCommand } = await import('@aws-sdk/client-sesv2');
      const utf8 = (data: string) => ({ Data: data, Charset: 'UTF-8' });
      const content =
        'notification' in message
          ? {
              Subject: utf8(message.notification.subject),
              Body: { Text: utf8(message.notification.text), Html: utf8(message.notification.html) },
            }
          : {
              Subject: utf8(SUBJECTS[message.purpose ?? 'mfa'](issuer)),
              Body: { Text: utf8(text(issuer, message.code, message.purpose)) },
            };
      await client.send(
        new SendEmailCommand({ FromEmailAddress: from, Destination: { ToAddresses: [message.destination] }, Content: { Simple: content } }),
      );
    },
  };
}

/** SMS messages through one delivery, EMAIL messages through another. */
export function deliveryByMethod(routes: Record<DeliveredMethod, CodeDelivery>): CodeDelivery {
  return { send: (message) => routes[message.method].send(message) };
}

export type OutboxMessage = z.output<typeof outboxCodeSchema>;
export type OutboxEmail = z.output<typeof outboxEmailSchema>;
export type OutboxNotification = z.output<typeof outboxNotificationSchema>;

/**
 * The local outbox, readable by developers (`npm run outbox`) and tests: the last code
 * per user, method and purpose, and the user's latest notifications.
 */
export interface MfaOutbox {
  put(message: DeliveryMessage & { sentAt: number }): Promise<void>;
  latest(tenantId: string, userId: string, method: DeliveredMethod, purpose?: CodePurpose): Promise<OutboxMessage | undefined>;
  /** The user's notifications, newest first. */
  notifications(tenantId: string, userId: string): Promise<OutboxNotification[]>;
  /** Every email sent to the address (codes, notifications, invitations), oldest first. */
  emails(address: string): Promise<OutboxEmail[]>;
}

/**
 * Local development only (lib/config refuses it in AWS): instead of sending, the
 * code or notification is written to the outbox in the table, where developers and tests read it.
 */
export function outboxDelivery(outbox: MfaOutbox, clock: Clock): CodeDelivery {
  return { send: (message) => outbox.put({ ...message, sentAt: epochSeconds(clock) }) };
}

/** Sends a fresh code: the outbox or SNS/SES gets the code, the log only a masked destination. */
export async function sendCode(
  deps: { mfaDelivery: CodeDelivery; log: Logger },
  account: Account,
  method: DeliveredMethod,
  destination: string,
  code: string,
): Promise<void> {
  await deps.mfaDelivery.send({ tenantId: account.tenantId, userId: account.userId, method, destination, code });
  deps.log.info('mfa_code_sent', { ...account, method, destination: maskDestination(destination) });
}
