import type { SESv2Client } from '@aws-sdk/client-sesv2';
import type { SNSClient } from '@aws-sdk/client-sns';
import * as z from 'zod';
import type { Clock } from '../clock';
import { epochSeconds } from '../clock';
import { CODE_TTL_SECONDS } from './codes';
import type { DeliveredMethod } from './methods';

/** A one-time code on its way to a user. */
export interface CodeMessage {
  tenantId: string;
  userId: string;
  method: DeliveredMethod;
  /** E.164 phone number (SMS) or email address (EMAIL). */
  destination: string;
  code: string;
}

/** The delivery port (docs/api.md 4.4): Amazon SNS and SES in AWS, the outbox locally. */
export interface CodeDelivery {
  send(message: CodeMessage): Promise<void>;
}

function text(issuer: string, code: string): string {
  return `${code} is your ${issuer} verification code. It expires in ${CODE_TTL_SECONDS / 60} minutes. Do not share it.`;
}

// The SDK packages are imported on first send, so functions that never send keep their cold start.
type SnsClient = Pick<SNSClient, 'send'>;
type SesClient = Pick<SESv2Client, 'send'>;

/** Text messages through Amazon SNS (direct publish to a phone number, transactional). */
export function snsDelivery(client: SnsClient, issuer: string): CodeDelivery {
  return {
    async send({ destination, code }) {
      const { PublishCommand } = await import('@aws-sdk/client-sns');
      await client.send(
        new PublishCommand({
          PhoneNumber: destination,
          Message: text(issuer, code),
          MessageAttributes: { 'AWS.SNS.SMS.SMSType': { DataType: 'String', StringValue: 'Transactional' } },
        }),
      );
    },
  };
}

/** Email through Amazon SES v2 from a verified sender address. */
export function sesDelivery(client: SesClient, from: string, issuer: string): CodeDelivery {
  return {
    async send({ destination, code }) {
      const { SendEmailCommand } = await import('@aws-sdk/client-sesv2');
      await client.send(
        new SendEmailCommand({
          FromEmailAddress: from,
          Destination: { ToAddresses: [destination] },
          Content: {
            Simple: {
              Subject: { Data: `Your ${issuer} verification code`, Charset: 'UTF-8' },
              Body: { Text: { Data: text(issuer, code), Charset: 'UTF-8' } },
            },
          },
        }),
      );
    },
  };
}

/** SMS codes through one delivery, EMAIL codes through another. */
export function deliveryByMethod(routes: Record<DeliveredMethod, CodeDelivery>): CodeDelivery {
  return { send: (message) => routes[message.method].send(message) };
}

/** A message kept in the local outbox. */
/** What the outbox keeps of a code it was handed (local development only). */
export const outboxMessageSchema = z.object({
  tenantId: z.string(),
  userId: z.string(),
  method: z.enum(['SMS', 'EMAIL']),
  destination: z.string(),
  code: z.string(),
  /** Epoch seconds. */
  sentAt: z.number(),
});

export type OutboxMessage = z.output<typeof outboxMessageSchema>;

/** The local outbox: the last code sent per user and method, readable by developers and tests. */
export interface MfaOutbox {
  put(message: OutboxMessage): Promise<void>;
  latest(tenantId: string, userId: string, method: DeliveredMethod): Promise<OutboxMessage | undefined>;
}

/**
 * Local development only (lib/config refuses it in AWS): instead of sending, the
 * code is written to the outbox in the table, where developers and tests read it.
 */
export function outboxDelivery(outbox: MfaOutbox, clock: Clock): CodeDelivery {
  return { send: (message) => outbox.put({ ...message, sentAt: epochSeconds(clock) }) };
}
