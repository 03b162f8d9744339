import { randomUUID } from 'node:crypto';
import type { Agent, ClientRequest, IncomingMessage, RequestOptions } from 'node:http';
import { type AwsCredentials, signPost } from '../sigv4';
import type { DocumentCommand } from './commands';

/**
 * The stores' DynamoDB client: DynamoDB's JSON protocol over node:http(s), signed with
 * lib/sigv4.ts, with what the SDK's client gave the service (retries with backoff and
 * jitter on throttling, 5xx and dropped connections; a connection and an answer timeout;
 * errors named as the SDK names them, with their members such as `CancellationReasons`
 * or the `Item` of `ReturnValuesOnConditionCheckFailure`). It loads in a few
 * milliseconds where the SDK's DynamoDB client took about 45 (docs/decisions/001-lean-dynamodb-client.md).
 * Secrets Manager and KMS speak the same protocol: it sends their calls too (`awsJsonCall` in
 * lib/aws.ts, docs/decisions/036-lean-secret-reads.md).
 */

/**
 * A service of AWS's JSON protocol: DynamoDB, or those lib/aws.ts names for `awsJsonCall`
 * (Secrets Manager, KMS; docs/decisions/036-lean-secret-reads.md).
 */
export interface AwsJsonService {
  /** The name requests are signed for, and the first label of the regional endpoint. */
  signingName: string;
  /** For messages. */
  label: string;
  /** `X-Amz-Target` is `<targetPrefix>.<operation>`. */
  targetPrefix: string;
  contentType: string;
}

export const DYNAMODB: AwsJsonService = {
  signingName: 'dynamodb',
  label: 'DynamoDB',
  targetPrefix: 'DynamoDB_20120810',
  contentType: 'application/x-amz-json-1.0',
};

/** Where and how long to try. */
export interface DynamoClientSettings {
  region: string;
  /** DynamoDB Local's URL; unset in AWS (then `https://<signingName>.<region>.amazonaws.com`). */
  endpoint?: string | undefined;
  /** DynamoDB unless set. */
  service?: AwsJsonService;
  credentials: () => Promise<AwsCredentials>;
  /** Tries of one command, the first included. */
  maxAttempts: number;
  connectionTimeoutMs: number;
  /** How long an answer may take once connected. */
  requestTimeoutMs: number;
}

/** One try of a command: its input in DynamoDB's form in, the answer's JSON out. */
export type AttemptHandler = (args: { input: Record<string, unknown> }) => Promise<{ output: Record<string, unknown> }>;

/**
 * Wraps every command (`initialize`: once, around its retries) or every try of it
 * (`deserialize`); `commandName` is the SDK's (`PutItemCommand`, `TransactWriteItemsCommand`).
 */
export type AttemptMiddleware = (next: AttemptHandler, context: { commandName: string }) => AttemptHandler;

/**
 * The part of the SDK's middleware stack tests use to lose an answer after DynamoDB
 * applied a write, or to refuse a transaction once (test/helpers/lost-answers.ts,
 * test/security/lost-answers.test.ts): the same calls work on this client.
 */
export interface MiddlewareStack {
  add(middleware: AttemptMiddleware, options: { step: 'initialize' | 'deserialize'; name: string }): void;
  remove(name: string): boolean;
}

/** What the stores use: `send` a command of lib/store/commands.ts. */
export interface DocumentClient {
  send<Output>(command: DocumentCommand<unknown, Output>): Promise<Output>;
  middlewareStack: MiddlewareStack;
  /** Closes its idle connections. */
  destroy(): void;
}

const TIMEOUT_NAMES = new Set(['TimeoutError', 'RequestTimeout', 'RequestTimeoutException']);
const CONNECTION_CODES = new Set(['ECONNRESET', 'ECONNREFUSED', 'EPIPE', 'ETIMEDOUT']);
const THROTTLING_NAMES = new Set([
  'ThrottlingException',
  'ProvisionedThroughputExceededException',
  'RequestLimitExceeded',
  'TooManyRequestsException',
  'TransactionInProgressException',
]);
const SERVER_STATUSES = new Set([500, 502, 503, 504]);
/** The SDK's standard retry strategy: full jitter over 100 ms (500 ms when throttled) doubled per try, at most 20 s. */
const BASE_DELAY_MS = 100;
const THROTTLED_BASE_DELAY_MS = 500;
const MAX_DELAY_MS = 20_000;

type AwsError = Error & { code?: unknown; $metadata?: { httpStatusCode?: number; requestId?: string; attempts?: number } };

/** Named as throttling, or answered 429 (as the SDK's retry strategy tells them). */
const isThrottling = (error: AwsError) => THROTTLING_NAMES.has(error.name) || error.$metadata?.httpStatusCode === 429;

function isRetryable(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const failure = error as AwsError;
  const status = failure.$metadata?.httpStatusCode;
  return (
    TIMEOUT_NAMES.has(failure.name) ||
    (typeof failure.code === 'string' && CONNECTION_CODES.has(failure.code)) ||
    isThrottling(failure) ||
    (status !== undefined && SERVER_STATUSES.has(status))
  );
}

function backoffMs(error: AwsError, retry: number): number {
  const base = isThrottling(error) ? THROTTLED_BASE_DELAY_MS : BASE_DELAY_MS;
  return Math.floor(Math.min(MAX_DELAY_MS, Math.random() * 2 ** retry * base));
}

const timeoutError = (message: string) => Object.assign(new Error(message), { name: 'TimeoutError' });

/**
 * The error the service answered, as the SDK builds it: named after its `X-Amzn-ErrorType`
 * header, else its body's `code` or `__type` (`ConditionalCheckFailedException`, from
 * `com.amazonaws.kms#NotFoundException` or `ThrottlingException:http://…` too), with the
 * members of its body.
 */
function serviceError(
  label: string,
  status: number,
  text: string,
  answer: { requestId: string | undefined; errorType: string | undefined },
): AwsError {
  let body: Record<string, unknown> = {};
  try {
    const parsed: unknown = JSON.parse(text);
    if (typeof parsed === 'object' && parsed !== null) body = parsed as Record<string, unknown>;
  } catch {
    // Not JSON (a proxy's page): named after the status below.
  }
  const { __type, message, Message, ...members } = body;
  const code = [answer.errorType, body.code, __type].find((value): value is string => typeof value === 'string' && value !== '') ?? '';
  const unqualified = code.split(':')[0]?.split(',')[0] ?? '';
  const type = unqualified.slice(unqualified.lastIndexOf('#') + 1);
  const name = type || (status === 503 ? 'ServiceUnavailable' : status >= 500 ? 'InternalServerError' : 'UnknownError');
  const error = new Error(String(message ?? Message ?? `${label} answered ${status}`));
  return Object.assign(error, members, {
    name,
    $fault: status >= 500 ? 'server' : 'client',
    $metadata: { httpStatusCode: status, requestId: answer.requestId },
  });
}

type Transport = typeof import('node:http') | typeof import('node:https');

/**
 * The TLS server name of an endpoint: its host name, or none for an address. A parsed URL
 * writes an IPv6 address in brackets and an IPv4 address in dotted decimal (a host whose
 * last label is a number is parsed as one, or refused), so no address check runs: the
 * first `net.isIP` of a process compiles Node's IPv6 expression, about 3 ms of a cold start.
 */
export function tlsServerName(url: URL): string {
  return url.hostname.startsWith('[') || /^[\d.]+$/.test(url.hostname) ? '' : url.hostname;
}

/** A DynamoDB client that signs and sends its requests itself (see above). */
export function createDynamoClient(settings: DynamoClientSettings): DocumentClient {
  const service = settings.service ?? DYNAMODB;
  const url = new URL(settings.endpoint ?? `https://${service.signingName}.${settings.region}.amazonaws.com`);
  // Only the protocol in use is loaded, and only by the first request: TLS costs a few
  // milliseconds of a cold start that DynamoDB Local does not need, and HTTP itself those of a
  // function whose first request reaches no AWS service (docs/decisions/037-built-ins-on-first-use.md).
  let connection: { transport: Transport; agent: Agent; target: RequestOptions & { servername: string } } | undefined;
  const connect = () => {
    const transport: Transport = process.getBuiltinModule(url.protocol === 'https:' ? 'node:https' : 'node:http');
    const agent: Agent = new transport.Agent({ keepAlive: true, maxSockets: 50 });
    // Every request goes to the same place: its options are made once, not parsed from the URL
    // (nor the TLS server name worked out) per request (docs/performance.md, "Cost of a round trip").
    const target = {
      protocol: url.protocol,
      hostname: url.hostname,
      port: url.port || (url.protocol === 'https:' ? 443 : 80),
      path: '/',
      method: 'POST',
      agent,
      servername: tlsServerName(url),
    };
    return { transport, agent, target };
  };
  const middlewares: Array<{ middleware: AttemptMiddleware; step: 'initialize' | 'deserialize'; name: string }> = [];
  const wrap = (step: 'initialize' | 'deserialize', handler: AttemptHandler, commandName: string) =>
    middlewares.filter((entry) => entry.step === step).reduce((next, entry) => entry.middleware(next, { commandName }), handler);

  type Answer = { status: number; text: string; requestId: string | undefined; errorType: string | undefined };
  function post(headers: Record<string, string>, body: string): Promise<Answer> {
    return new Promise((resolve, reject) => {
      let settled = false;
      const finish = (error: Error | undefined, answer?: Answer) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        if (error) reject(error);
        else if (answer) resolve(answer);
      };
      connection ??= connect();
      const { transport, target } = connection;
      const request: ClientRequest = transport.request({ ...target, headers }, (response: IncomingMessage) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('error', (error) => finish(error));
        response.on('end', () => {
          const { 'x-amzn-requestid': requestId, 'x-amzn-errortype': errorType } = response.headers;
          finish(undefined, {
            status: response.statusCode ?? 0,
            text: (chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks)).toString('utf8'),
            requestId: typeof requestId === 'string' ? requestId : undefined,
            errorType: typeof errorType === 'string' ? errorType : undefined,
          });
        });
      });
      // The phase being waited for names the timeout. On a reused connection (the usual case)
      // the one timer is restarted, not replaced.
      let waitingFor = `No free connection to ${service.label} within ${settings.requestTimeoutMs} ms`;
      const expire = () => request.destroy(timeoutError(waitingFor));
      let timer = setTimeout(expire, settings.requestTimeoutMs);
      let timerMs = settings.requestTimeoutMs;
      const bound = (message: string, ms: number) => {
        waitingFor = message;
        if (ms === timerMs) timer.refresh();
        else {
          clearTimeout(timer);
          timer = setTimeout(expire, ms);
          timerMs = ms;
        }
      };
      // Waiting for one of the agent's sockets (all busy with this instance's other requests,
      // e.g. an admin listing a page of users) is waiting for answers: bounded as one, not as
      // a connection that DynamoDB failed to accept.
      request.on('socket', (socket) => {
        const connected = () => bound(`No answer from ${service.label} within ${settings.requestTimeoutMs} ms`, settings.requestTimeoutMs);
        if (socket.connecting) {
          bound(`No connection to ${service.label} within ${settings.connectionTimeoutMs} ms`, settings.connectionTimeoutMs);
          socket.once('connect', connected);
        } else connected();
      });
      request.on('error', (error) => finish(error));
      request.end(body);
    });
  }

  function attempt(operation: string): AttemptHandler {
    return async ({ input }) => {
      const body = JSON.stringify(input);
      const unsigned = {
        'content-type': service.contentType,
        'content-length': String(Buffer.byteLength(body)),
        'x-amz-target': `${service.targetPrefix}.${operation}`,
      };
      const signed = signPost(
        { host: url.host, headers: unsigned, body },
        { region: settings.region, service: service.signingName },
        await settings.credentials(),
      );
      const answer = await post(signed, body);
      if (answer.status !== 200) throw serviceError(service.label, answer.status, answer.text, answer);
      return { output: answer.text ? (JSON.parse(answer.text) as Record<string, unknown>) : {} };
    };
  }

  /** Tries a command up to `maxAttempts` times, waiting with jitter between tries. */
  const withRetries =
    (tryOnce: AttemptHandler): AttemptHandler =>
    async (args) => {
      for (let tries = 1; ; tries++) {
        try {
          return await tryOnce(args);
        } catch (error) {
          if (tries >= settings.maxAttempts || !isRetryable(error)) {
            if (error instanceof Error) Object.assign(error, { $metadata: { ...(error as AwsError).$metadata, attempts: tries } });
            throw error;
          }
          await new Promise((done) => setTimeout(done, backoffMs(error as AwsError, tries)));
        }
      }
    };

  return {
    async send<Output>(command: DocumentCommand<unknown, Output>): Promise<Output> {
      const input = command.request();
      // One token for every try: DynamoDB applies a retried transaction once.
      if (command.operation === 'TransactWriteItems' && input.ClientRequestToken === undefined) input.ClientRequestToken = randomUUID();
      const commandName = `${command.operation}Command`;
      const tries = withRetries(wrap('deserialize', attempt(command.operation), commandName));
      const { output } = await wrap('initialize', tries, commandName)({ input });
      return command.answer(output);
    },
    middlewareStack: {
      add: (middleware, { step, name }) => void middlewares.push({ middleware, step, name }),
      remove(name) {
        const index = middlewares.findIndex((entry) => entry.name === name);
        if (index >= 0) middlewares.splice(index, 1);
        return index >= 0;
      },
    },
    destroy: () => connection?.agent.destroy(),
  };
}
