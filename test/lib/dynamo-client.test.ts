import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { type AddressInfo, isIP } from 'node:net';
import { SignatureV4 } from '@smithy/signature-v4';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type AwsCredentials, signPost } from '../../lib/sigv4';
import { GetCommand, PutCommand, TransactWriteCommand, UpdateCommand } from '../../lib/store/commands';
import { cancellationCodes, isConditionalCheckFailed, lambdaCredentials, oldItemOf } from '../../lib/store/dynamo';
import { createDynamoClient, type DocumentClient, tlsServerName } from '../../lib/store/dynamo-client';
import { freePort } from '../../scripts/dynamodb-local';
import { Sha256 } from '../helpers/sdk-sha256';

describe('signPost (AWS Signature Version 4)', () => {
  const body = JSON.stringify({ TableName: 'identity', Key: { pk: { S: 'TENANT#a' }, sk: { S: 'USER#b' } } });
  const headers = {
    'content-type': 'application/x-amz-json-1.0',
    'content-length': String(body.length),
    'x-amz-target': 'DynamoDB_20120810.GetItem',
  };
  const host = 'dynamodb.eu-west-1.amazonaws.com';
  const at = new Date('2026-11-23T10:11:12.345Z');

  it.each<[string, AwsCredentials]>([
    ['long-term keys', { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY' }],
    [
      'a Lambda role session',
      { accessKeyId: 'ASIAEXAMPLE', secretAccessKey: 'role/secret+key', sessionToken: 'IQoJb3JpZ2luX2VjE//session==' },
    ],
  ])('signs as the SDK signer does, with %s', async (_, credentials) => {
    const ours = signPost({ host, headers, body }, { region: 'eu-west-1', service: 'dynamodb' }, credentials, at);
    const sdk = await new SignatureV4({ credentials, region: 'eu-west-1', service: 'dynamodb', sha256: Sha256, applyChecksum: false }).sign(
      { method: 'POST', protocol: 'https:', hostname: host, path: '/', query: {}, headers: { ...headers, host }, body },
      { signingDate: at },
    );
    expect(ours.authorization).toBe(sdk.headers.authorization);
    expect(ours['x-amz-date']).toBe('20261123T101112Z');
    expect(ours['x-amz-security-token']).toBe(credentials.sessionToken);
  });
});

describe('tlsServerName', () => {
  it('names the host of a host name and nothing for an address, as net.isIP would tell them apart', () => {
    const endpoints = {
      'https://dynamodb.eu-west-1.amazonaws.com': 'dynamodb.eu-west-1.amazonaws.com',
      'https://dynamodb.eu-west-1.api.aws:443': 'dynamodb.eu-west-1.api.aws',
      'http://localhost:8000': 'localhost',
      'https://db1.example': 'db1.example',
      'http://127.0.0.1:8000': '',
      'http://0x7f.1:8000': '',
      'http://2130706433/': '',
      'http://[::1]:8000': '',
      'https://[2001:db8::ffff:192.0.2.1]/': '',
    };
    for (const [endpoint, expected] of Object.entries(endpoints)) {
      const url = new URL(endpoint);
      expect(tlsServerName(url)).toBe(expected);
      expect(tlsServerName(url) === '').toBe(isIP(url.hostname.replace(/^\[|\]$/g, '')) !== 0);
    }
  });
});

describe('lambdaCredentials', () => {
  const saved = { ...process.env };
  afterEach(() => {
    for (const name of ['AWS_ACCESS_KEY_ID', 'AWS_SECRET_ACCESS_KEY', 'AWS_SESSION_TOKEN']) {
      if (saved[name] === undefined) delete process.env[name];
      else process.env[name] = saved[name];
    }
  });

  it("reads the function role's keys and session token from the environment at each request", async () => {
    const credentials = lambdaCredentials();
    Object.assign(process.env, { AWS_ACCESS_KEY_ID: 'ASIAONE', AWS_SECRET_ACCESS_KEY: 'one', AWS_SESSION_TOKEN: 'token-one' });
    expect(await credentials()).toEqual({ accessKeyId: 'ASIAONE', secretAccessKey: 'one', sessionToken: 'token-one' });
    Object.assign(process.env, { AWS_ACCESS_KEY_ID: 'ASIATWO', AWS_SECRET_ACCESS_KEY: 'two', AWS_SESSION_TOKEN: 'token-two' });
    expect(await credentials()).toEqual({ accessKeyId: 'ASIATWO', secretAccessKey: 'two', sessionToken: 'token-two' });
  });
});

/** What a fake DynamoDB received and how it answers each request, in order. */
type Answer = { status: number; body: unknown } | 'hang';
interface Received {
  target: string | undefined;
  authorization: string | undefined;
  token: string | undefined;
  body: Record<string, unknown>;
}

describe('the DynamoDB client against a fake DynamoDB', () => {
  let server: Server;
  let endpoint: string;
  let answers: Answer[] = [];
  let received: Received[] = [];
  const hung: ServerResponse[] = [];
  /** How long the server takes to answer each request. */
  let slowMs = 0;
  /** Connections the server accepted. */
  let connections = 0;

  beforeAll(async () => {
    server = createServer((request: IncomingMessage, response: ServerResponse) => {
      let text = '';
      request.on('data', (chunk) => {
        text += chunk;
      });
      request.on('end', () => {
        received.push({
          target: request.headers['x-amz-target'] as string | undefined,
          authorization: request.headers.authorization,
          token: request.headers['x-amz-security-token'] as string | undefined,
          body: JSON.parse(text),
        });
        const answer = answers.shift() ?? { status: 200, body: {} };
        if (answer === 'hang') {
          hung.push(response);
          return;
        }
        const requestId = `request-${received.length}`;
        setTimeout(() => {
          response.writeHead(answer.status, { 'content-type': 'application/x-amz-json-1.0', 'x-amzn-requestid': requestId });
          response.end(JSON.stringify(answer.body));
        }, slowMs);
      });
    });
    server.on('connection', () => {
      connections++;
    });
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    for (const response of hung) response.destroy();
    await new Promise((done) => server.close(done));
  });
  afterEach(() => {
    answers = [];
    received = [];
  });

  const client = (
    settings: { endpoint?: string; requestTimeoutMs?: number; connectionTimeoutMs?: number; maxAttempts?: number } = {},
  ): DocumentClient =>
    createDynamoClient({
      region: 'eu-west-1',
      endpoint: settings.endpoint ?? endpoint,
      credentials: async () => ({ accessKeyId: 'ASIAEXAMPLE', secretAccessKey: 'secret', sessionToken: 'session' }),
      maxAttempts: settings.maxAttempts ?? 3,
      connectionTimeoutMs: settings.connectionTimeoutMs ?? 1000,
      requestTimeoutMs: settings.requestTimeoutMs ?? 2000,
    });
  const dynamoError = (type: string, members: Record<string, unknown> = {}) => ({
    __type: `com.amazonaws.dynamodb.v20120810#${type}`,
    message: `${type} happened`,
    ...members,
  });

  it('sends the command signed, in DynamoDB form, and answers with plain values', async () => {
    answers = [{ status: 200, body: { Item: { pk: { S: 'p' }, n: { N: '7' }, tags: { SS: ['a', 'b'] }, ok: { BOOL: true } } } }];
    const doc = client();
    const { Item } = await doc.send(new GetCommand({ TableName: 't', Key: { pk: 'p', sk: 's' }, ConsistentRead: true }));
    expect(Item).toEqual({ pk: 'p', n: 7, tags: new Set(['a', 'b']), ok: true });
    expect(received).toEqual([
      {
        target: 'DynamoDB_20120810.GetItem',
        authorization: expect.stringMatching(
          /^AWS4-HMAC-SHA256 Credential=ASIAEXAMPLE\/\d{8}\/eu-west-1\/dynamodb\/aws4_request, SignedHeaders=content-length;content-type;host;x-amz-date;x-amz-security-token;x-amz-target, Signature=[0-9a-f]{64}$/,
        ),
        token: 'session',
        body: { TableName: 't', Key: { pk: { S: 'p' }, sk: { S: 's' } }, ConsistentRead: true },
      },
    ]);
    doc.destroy();
  });

  it('leaves undefined values out, as the SDK document client did with removeUndefinedValues', async () => {
    const doc = client();
    await doc.send(
      new UpdateCommand({
        TableName: 't',
        Key: { pk: 'p', sk: 's' },
        UpdateExpression: 'SET a = :a',
        ExpressionAttributeValues: { ':a': { kept: 1, dropped: undefined } },
        ReturnValues: undefined,
      }),
    );
    expect(received[0]?.body).toEqual({
      TableName: 't',
      Key: { pk: { S: 'p' }, sk: { S: 's' } },
      UpdateExpression: 'SET a = :a',
      ExpressionAttributeValues: { ':a': { M: { kept: { N: '1' } } } },
    });
    doc.destroy();
  });

  it('retries throttling and 5xx answers, and succeeds on the third try', async () => {
    answers = [
      { status: 400, body: dynamoError('ThrottlingException') },
      { status: 500, body: dynamoError('InternalServerError') },
      { status: 200, body: { Attributes: { pk: { S: 'p' } } } },
    ];
    const doc = client();
    const put = new PutCommand({ TableName: 't', Item: { pk: 'p', sk: 's' }, ReturnValues: 'ALL_OLD' });
    expect(await doc.send(put)).toEqual({ Attributes: { pk: 'p' } });
    expect(received.map((r) => r.target)).toEqual(Array(3).fill('DynamoDB_20120810.PutItem'));
    doc.destroy();
  });

  it('gives up after three tries with the error named as DynamoDB named it', async () => {
    answers = Array(3).fill({ status: 400, body: dynamoError('ProvisionedThroughputExceededException') });
    const doc = client();
    const failure = await doc.send(new GetCommand({ TableName: 't', Key: { pk: 'p', sk: 's' } })).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(Error);
    expect(failure).toMatchObject({
      name: 'ProvisionedThroughputExceededException',
      message: 'ProvisionedThroughputExceededException happened',
      $fault: 'client',
      $metadata: { httpStatusCode: 400, requestId: 'request-3', attempts: 3 },
    });
    expect(received).toHaveLength(3);
    doc.destroy();
  });

  it("does not retry a failed condition, and carries the item's old values (ReturnValuesOnConditionCheckFailure)", async () => {
    answers = [{ status: 400, body: dynamoError('ConditionalCheckFailedException', { Item: { pk: { S: 'p' }, uses: { N: '2' } } }) }];
    const doc = client();
    const failure = await doc
      .send(
        new PutCommand({
          TableName: 't',
          Item: { pk: 'p' },
          ConditionExpression: 'attribute_not_exists(pk)',
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        }),
      )
      .catch((error: unknown) => error);
    expect(isConditionalCheckFailed(failure)).toBe(true);
    expect(isConditionalCheckFailed(failure) && oldItemOf(failure)).toEqual({ pk: 'p', uses: 2 });
    expect(received).toHaveLength(1);
    expect(received[0]?.body.ReturnValuesOnConditionCheckFailure).toBe('ALL_OLD');
    doc.destroy();
  });

  it('gives a cancelled transaction its reasons, and sends every try of it with one client request token', async () => {
    answers = [
      { status: 500, body: dynamoError('InternalServerError') },
      {
        status: 400,
        body: dynamoError('TransactionCanceledException', {
          CancellationReasons: [{ Code: 'None' }, { Code: 'ConditionalCheckFailed', Message: 'The conditional request failed' }],
        }),
      },
    ];
    const doc = client();
    const failure = await doc
      .send(
        new TransactWriteCommand({
          TransactItems: [
            { Put: { TableName: 't', Item: { pk: 'a' } } },
            {
              ConditionCheck: {
                TableName: 't',
                Key: { pk: 'b' },
                ConditionExpression: 'attribute_exists(pk)',
                ExpressionAttributeValues: undefined,
              },
            },
          ],
        }),
      )
      .catch((error: unknown) => error);
    expect(cancellationCodes(failure)).toEqual(['None', 'ConditionalCheckFailed']);
    expect(received).toHaveLength(2);
    const [first, second] = received.map((r) => r.body.ClientRequestToken);
    expect(first).toMatch(/^[0-9a-f-]{36}$/);
    expect(second).toBe(first);
    expect(received[0]?.body.TransactItems).toEqual([
      { Put: { TableName: 't', Item: { pk: { S: 'a' } } } },
      { ConditionCheck: { TableName: 't', Key: { pk: { S: 'b' } }, ConditionExpression: 'attribute_exists(pk)' } },
    ]);
    doc.destroy();
  });

  it('gives up on a database that does not answer with a TimeoutError, after three tries of the answer timeout', async () => {
    answers = ['hang', 'hang', 'hang'];
    const doc = client({ requestTimeoutMs: 100 });
    const started = Date.now();
    const failure = await doc.send(new GetCommand({ TableName: 't', Key: { pk: 'p' } })).catch((error: unknown) => error);
    expect(failure).toMatchObject({ name: 'TimeoutError', message: 'No answer from DynamoDB within 100 ms', $metadata: { attempts: 3 } });
    expect(received).toHaveLength(3);
    expect(Date.now() - started).toBeGreaterThanOrEqual(300);
    doc.destroy();
  });

  it('sends one request after another over one kept-alive connection', async () => {
    const doc = client();
    const before = connections;
    for (let i = 0; i < 5; i++) await doc.send(new GetCommand({ TableName: 't', Key: { pk: `p${i}` } }));
    expect(received).toHaveLength(5);
    expect(connections - before).toBe(1);
    doc.destroy();
  });

  it('lets requests queued behind busy connections wait like answers, not like connections: 120 at once all answer', async () => {
    slowMs = 150;
    // 50 sockets at most: the third wave waits 300 ms for one, longer than the connection timeout.
    const doc = client({ connectionTimeoutMs: 100, requestTimeoutMs: 2000, maxAttempts: 1 });
    const results = await Promise.allSettled(
      Array.from({ length: 120 }, (_, i) => doc.send(new GetCommand({ TableName: 't', Key: { pk: `p${i}` } }))),
    );
    slowMs = 0;
    expect(results.filter((result) => result.status === 'rejected')).toEqual([]);
    expect(received).toHaveLength(120);
    doc.destroy();
  });

  it('gives up on a refused connection with its code, which the functions answer 503', async () => {
    const doc = client({ endpoint: `http://127.0.0.1:${await freePort()}` });
    const failure = await doc.send(new GetCommand({ TableName: 't', Key: { pk: 'p' } })).catch((error: unknown) => error);
    expect(failure).toMatchObject({ code: 'ECONNREFUSED', $metadata: { attempts: 3 } });
    doc.destroy();
  });
});
