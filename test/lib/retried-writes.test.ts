import { beforeAll, describe, expect, inject, it } from 'vitest';
import { dynamoStores } from '../../lib/deps';
import { createDynamo, type Dynamo } from '../../lib/store/dynamo';
import { registerAdmin, testApp } from '../helpers/app';
import { type TestDeps, testDeps, uniqueTenant } from '../helpers/deps';

/**
 * The SDK retries a request whose answer timed out, but the first attempt may have been
 * applied. A conditional write retried that way fails its condition against its own
 * result, which must not look like a second use of a single-use token.
 */
function losingAnswers(): Dynamo & { loseNext(command: string): void } {
  const dynamo = createDynamo({ tableName: inject('tableName'), region: 'us-east-1', endpoint: inject('dynamodbEndpoint') });
  const pending = new Set<string>();
  dynamo.doc.middlewareStack.add(
    (next, context) => async (args) => {
      const result = await next(args);
      if (pending.delete(context.commandName ?? '')) {
        // Applied by DynamoDB, answer lost on the way back: the SDK retries it.
        throw Object.assign(new Error('Lost answer'), { name: 'TimeoutError', $metadata: {} });
      }
      return result;
    },
    { step: 'deserialize', name: 'loseAnswer' },
  );
  return Object.assign(dynamo, { loseNext: (command: string) => void pending.add(command) });
}

describe('conditional writes retried after a lost answer', () => {
  let deps: TestDeps;
  let dynamo: ReturnType<typeof losingAnswers>;

  beforeAll(async () => {
    dynamo = losingAnswers();
    deps = { ...(await testDeps()), store: dynamoStores(dynamo) } as TestDeps;
  });

  it('rotates a refresh token once: the retry finds its own write, not a reuse', async () => {
    const app = testApp(deps);
    const { refreshToken } = await registerAdmin(app, uniqueTenant('retry'));

    dynamo.loseNext('UpdateItemCommand');
    const refreshed = await app.request('refresh', { body: { refreshToken } });
    expect(refreshed.status).toBe(200);
    expect(deps.logs.map((line) => line.event)).not.toContain('refresh_token_reuse_detected');

    const next = await app.request('refresh', { body: { refreshToken: refreshed.body.data.refreshToken } });
    expect(next.status).toBe(200);
  });
});
