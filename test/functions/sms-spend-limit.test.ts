import type { CloudFormationCustomResourceEvent } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { makeHandler } from '../../functions/sms-spend-limit';

/** The custom resource of serverless.yml that sets SNS's monthly SMS spend limit (docs/api.md 10.4). */
describe('the SmsSpendLimit custom resource', () => {
  const event = (RequestType: 'Create' | 'Update' | 'Delete', MonthlySpendLimit: unknown = '100') =>
    ({
      RequestType,
      ResponseURL: 'https://cloudformation-answers.example/put',
      StackId: 'stack-1',
      RequestId: 'request-1',
      LogicalResourceId: 'SmsSpendLimit',
      ResourceType: 'Custom::SmsSpendLimit',
      ServiceToken: 'arn:aws:lambda:eu-west-1:123456789012:function:f',
      ResourceProperties: { ServiceToken: 'arn:aws:lambda:eu-west-1:123456789012:function:f', MonthlySpendLimit },
      ...(RequestType === 'Create' ? {} : { PhysicalResourceId: 'sms-monthly-spend-limit', OldResourceProperties: {} }),
    }) as CloudFormationCustomResourceEvent;

  function harness(fails?: Error) {
    const commands: Array<{ name: string; input: unknown }> = [];
    const answers: Array<{ url: string; body: Record<string, unknown> }> = [];
    const handler = makeHandler({
      sns: {
        send: async (command: { constructor: { name: string }; input: unknown }) => {
          commands.push({ name: command.constructor.name, input: command.input });
          if (fails) throw fails;
          return {};
        },
      } as never,
      answer: async (url, body) => void answers.push({ url, body: JSON.parse(body) }),
    });
    return { handler, commands, answers };
  }
  const context = { logStreamName: 'stream-1' };
  const answered = (Status: string, Reason: string) => ({
    url: 'https://cloudformation-answers.example/put',
    body: {
      Status,
      Reason,
      PhysicalResourceId: 'sms-monthly-spend-limit',
      StackId: 'stack-1',
      RequestId: 'request-1',
      LogicalResourceId: 'SmsSpendLimit',
    },
  });

  it.each(['Create', 'Update'] as const)('sets MonthlySpendLimit on %s and answers SUCCESS', async (type) => {
    const { handler, commands, answers } = harness();
    await handler(event(type, 100), context);
    expect(commands).toEqual([{ name: 'SetSMSAttributesCommand', input: { attributes: { MonthlySpendLimit: '100' } } }]);
    expect(answers).toEqual([answered('SUCCESS', 'OK')]);
  });

  it('leaves the account attribute alone on Delete', async () => {
    const { handler, commands, answers } = harness();
    await handler(event('Delete'), context);
    expect(commands).toEqual([]);
    expect(answers).toEqual([answered('SUCCESS', 'OK')]);
  });

  it('answers FAILED (the deploy stops and says why) when SNS refuses, or the limit is not whole dollars', async () => {
    const refused = harness(new Error('Invalid parameter: MonthlySpendLimit exceeds the account quota'));
    await refused.handler(event('Create', '5000'), context);
    expect(refused.answers).toEqual([
      answered('FAILED', 'Invalid parameter: MonthlySpendLimit exceeds the account quota (log stream stream-1)'),
    ]);
    const malformed = harness();
    await malformed.handler(event('Update', '1.5'), context);
    expect(malformed.commands).toEqual([]);
    expect(malformed.answers).toEqual([answered('FAILED', 'MonthlySpendLimit must be whole US dollars, got "1.5" (log stream stream-1)')]);
  });
});
