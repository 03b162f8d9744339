import { SendEmailCommand } from '@aws-sdk/client-sesv2';
import { PublishCommand } from '@aws-sdk/client-sns';
import { describe, expect, it } from 'vitest';
import { type CodeDelivery, deliveryByMethod, outboxDelivery, sesDelivery, snsDelivery } from '../../lib/mfa/delivery';
import { maskDestination } from '../../lib/mfa/masking';
import { testDeps, uniqueTenant } from '../helpers/deps';

/** A fake AWS client at the edge: records what it is sent. */
function fakeClient() {
  const sent: unknown[] = [];
  return {
    sent,
    client: {
      send: async (command: unknown) => {
        sent.push(command);
        return { MessageId: 'm-1' };
      },
    } as never,
  };
}

describe('delivery port', () => {
  it('sends SMS through SNS as a transactional message to the number', async () => {
    const sns = fakeClient();
    await snsDelivery(sns.client, 'Acme ID').send({
      tenantId: 't',
      userId: 'u',
      method: 'SMS',
      destination: '+4915112345678',
      code: '012345',
    });
    expect(sns.sent).toHaveLength(1);
    expect(sns.sent[0]).toBeInstanceOf(PublishCommand);
    expect((sns.sent[0] as PublishCommand).input).toEqual({
      PhoneNumber: '+4915112345678',
      Message: '012345 is your Acme ID verification code. It expires in 10 minutes. Do not share it.',
      MessageAttributes: { 'AWS.SNS.SMS.SMSType': { DataType: 'String', StringValue: 'Transactional' } },
    });
  });

  it('sends EMAIL through SES v2 from the configured sender', async () => {
    const ses = fakeClient();
    await sesDelivery(ses.client, 'no-reply@example.com', 'Acme ID').send({
      tenantId: 't',
      userId: 'u',
      method: 'EMAIL',
      destination: 'alice@example.com',
      code: '654321',
    });
    expect(ses.sent[0]).toBeInstanceOf(SendEmailCommand);
    expect((ses.sent[0] as SendEmailCommand).input).toEqual({
      FromEmailAddress: 'no-reply@example.com',
      Destination: { ToAddresses: ['alice@example.com'] },
      Content: {
        Simple: {
          Subject: { Data: 'Your Acme ID verification code', Charset: 'UTF-8' },
          Body: {
            Text: { Data: '654321 is your Acme ID verification code. It expires in 10 minutes. Do not share it.', Charset: 'UTF-8' },
          },
        },
      },
    });
  });

  it('routes SMS and EMAIL to their own delivery', async () => {
    const seen: string[] = [];
    const recorder = (name: string): CodeDelivery => ({ send: async () => void seen.push(name) });
    const delivery = deliveryByMethod({ SMS: recorder('sns'), EMAIL: recorder('ses') });
    await delivery.send({ tenantId: 't', userId: 'u', method: 'EMAIL', destination: 'a@b.example', code: '111111' });
    await delivery.send({ tenantId: 't', userId: 'u', method: 'SMS', destination: '+15551234567', code: '222222' });
    expect(seen).toEqual(['ses', 'sns']);
  });

  it('writes to the local outbox the last code per user and method, with the time it was sent', async () => {
    const deps = await testDeps();
    const tenantId = uniqueTenant();
    const outbox = outboxDelivery(deps.outbox, deps.clock);
    await outbox.send({ tenantId, userId: 'u-1', method: 'SMS', destination: '+15551234567', code: '000001' });
    deps.clock.advance(40);
    await outbox.send({ tenantId, userId: 'u-1', method: 'SMS', destination: '+15551234567', code: '000002' });
    expect(await deps.outbox.latest(tenantId, 'u-1', 'SMS')).toEqual({
      tenantId,
      userId: 'u-1',
      method: 'SMS',
      destination: '+15551234567',
      code: '000002',
      sentAt: Math.floor(deps.clock.now() / 1000),
    });
    expect(await deps.outbox.latest(tenantId, 'u-1', 'EMAIL')).toBeUndefined();
    expect(await deps.outbox.latest(tenantId, 'u-2', 'SMS')).toBeUndefined();
  });
});

describe('maskDestination', () => {
  it.each([
    ['+4915112345678', '************78'],
    ['alice@example.com', 'a***@example.com'],
  ])('masks %s as %s', (destination, masked) => {
    expect(maskDestination(destination)).toBe(masked);
  });
});
