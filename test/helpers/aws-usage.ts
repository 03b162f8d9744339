import { deviceTokens } from '../../lib/abuse/device-token';
import { quotaDelivery } from '../../lib/abuse/send-quota';
import type { Config } from '../../lib/config';
import { cryptoRandom } from '../../lib/crypto/random';
import { dynamoStores } from '../../lib/deps';
import { type CodeDelivery, outboxDelivery } from '../../lib/mfa/delivery';
import { type DataKeySource, secretBox } from '../../lib/mfa/secret-box';
import { clientSecretHasher, pepperLoader } from '../../lib/oauth/client-secret';
import { createDynamo } from '../../lib/store/dynamo';
import type { AttemptMiddleware } from '../../lib/store/dynamo-client';
import type { KeyProvider, PublicKeyProvider } from '../../lib/tokens/signing-keys';
import { runningFunction } from './app';
import { noSecretsManager, type TestDeps, testDeps } from './deps';
import { memoryDataKeys } from './memory-data-keys';

/**
 * What each function does in AWS, as a run of the test app shows it: the IAM actions it
 * needs, each with the resource it needs it on (`dynamodb:Query@index`,
 * `secretsmanager:GetSecretValue@SigningKeysSecret`), and the configuration it reads
 * (`webauthn`, `mfa.delivery`). Keyed by the function at work (test/helpers/app.ts,
 * runningFunction): `authorizer` or a route such as `POST /auth/login`. Calls made
 * outside any function (a test's own setup) are not counted.
 */
export interface AwsUsage {
  operations: Map<string, Set<string>>;
  config: Map<string, Set<string>>;
}

const note = (into: Map<string, Set<string>>, what: string) => {
  const at = runningFunction.getStore();
  if (at === undefined) return;
  const seen = into.get(at) ?? new Set<string>();
  into.set(at, seen.add(what));
};

/** The IAM actions of one DynamoDB command: a transaction needs the action of each of its items. */
function dynamoActions(commandName: string, input: Record<string, unknown>): string[] {
  const operation = commandName.replace(/Command$/, '');
  switch (operation) {
    case 'TransactWriteItems': {
      const items = (input.TransactItems ?? []) as Array<Record<string, unknown>>;
      const actions: Record<string, string> = {
        Put: 'PutItem',
        Update: 'UpdateItem',
        Delete: 'DeleteItem',
        ConditionCheck: 'ConditionCheckItem',
      };
      return items.flatMap((item) => Object.keys(item).map((kind) => `dynamodb:${actions[kind] ?? kind}@table`));
    }
    case 'TransactGetItems':
      return ['dynamodb:GetItem@table'];
    case 'Query':
    case 'Scan':
      return [`dynamodb:${operation}@${input.IndexName === undefined ? 'table' : 'index'}`];
    default:
      return [`dynamodb:${operation}@table`];
  }
}

/** Configuration objects whose members are noted one by one (`mfa.delivery`), not as a whole. */
const NESTED = new Set<string>(['mfa']);

function recordingConfig(config: Config, usage: AwsUsage): Config {
  return new Proxy(config, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver);
      if (typeof property !== 'string') return value;
      if (!NESTED.has(property)) {
        note(usage.config, property);
        return value;
      }
      return new Proxy(value as object, {
        get(inner, member, innerReceiver) {
          if (typeof member === 'string') note(usage.config, `${property}.${member}`);
          return Reflect.get(inner, member, innerReceiver);
        },
      });
    },
  });
}

/**
 * One instance per function, as each Lambda function has its own: a port that caches what
 * it read (the secret box its derived keys) must not spare one function a read because
 * another function made it.
 */
function perFunction<T extends object>(make: () => T): T {
  const instances = new Map<string, T>();
  return new Proxy({} as T, {
    get(_, property) {
      const at = runningFunction.getStore() ?? '';
      const instance = instances.get(at) ?? make();
      instances.set(at, instance);
      const value = Reflect.get(instance, property);
      return typeof value === 'function' ? value.bind(instance) : value;
    },
  });
}

/**
 * Test deps on DynamoDB Local whose every AWS call is noted against the function at work.
 * The table is the real one; the ports that stand in for AWS services in tests note what
 * their production twins call: a signing-keys load reads its secret, a pepper load reads
 * the pepper's secret, a data key is made (GenerateDataKey) or opened (Decrypt) with the
 * MFA key, an SMS is published by SNS, an email sent by SES. Loads are noted at every use,
 * not only the first: any use may be a fresh instance's first; and the ports that cache
 * are one per function (perFunction).
 */
export async function recordingDeps(env: Record<string, string> = {}): Promise<TestDeps & { usage: AwsUsage }> {
  const usage: AwsUsage = { operations: new Map(), config: new Map() };
  const base = await testDeps({ SEND_QUOTA_PER_USER: '1000', ...env });
  /** Notes an operation and the setting that locates its resource, then does what the port does. */
  const operation = <T>(what: string, settings: string, then: () => T = () => undefined as T): T => {
    note(usage.operations, what);
    note(usage.config, settings);
    return then();
  };

  const dynamo = createDynamo({ tableName: base.config.tableName, region: base.config.awsRegion, endpoint: base.config.dynamodbEndpoint });
  const recordCommand: AttemptMiddleware =
    (next, { commandName }) =>
    async (args) => {
      for (const action of dynamoActions(commandName, args.input)) operation(action, 'tableName');
      return next(args);
    };
  dynamo.doc.middlewareStack.add(recordCommand, { step: 'initialize', name: 'recordAwsUsage' });
  const store = dynamoStores(dynamo, { random: cryptoRandom, clock: base.clock });

  const { keys: testKeys, publicKeys: testPublicKeys } = base;
  const keys: KeyProvider = {
    load: () => operation('secretsmanager:GetSecretValue@SigningKeysSecret', 'signingKeys', () => testKeys.load()),
  };
  const publicKeys: PublicKeyProvider = {
    load: () => operation('secretsmanager:GetSecretValue@SigningPublicKeysSecret', 'signingKeys', () => testPublicKeys.load()),
  };
  const loadPeppers = pepperLoader(base.config.oauthClientSecretPepper, noSecretsManager);
  const peppers = () => operation('secretsmanager:GetSecretValue@OAuthClientSecretPepper', 'oauthClientSecretPepper', () => loadPeppers());
  const memoryKeys = memoryDataKeys();
  const dataKeys: DataKeySource = {
    current: () => operation('kms:GenerateDataKey@MfaKey', 'mfa.dataKeys', () => memoryKeys.current()),
    find: (id) => operation('kms:Decrypt@MfaKey', 'mfa.dataKeys', () => memoryKeys.find(id)),
  };
  // The outbox stands in for SNS and SES: its own writes are not the function's.
  const outbox = outboxDelivery(base.outbox, base.clock);
  const sent: CodeDelivery = {
    send: (message) =>
      operation(message.method === 'SMS' ? 'sns:Publish@*' : 'ses:SendEmail@SesIdentity', 'mfa.delivery', () => outbox.send(message)),
  };

  const deps: TestDeps & { usage: AwsUsage } = Object.assign(base, {
    usage,
    store,
    keys,
    publicKeys,
    mfaSecrets: perFunction(() => secretBox(dataKeys)),
    mfaDelivery: quotaDelivery(sent, store.attempts, base.clock, base.config.sendQuotas, store.tenants),
    clientSecretHasher: perFunction(() => clientSecretHasher(peppers)),
    deviceTokens: perFunction(() => deviceTokens(peppers, cryptoRandom)),
  });
  deps.config = recordingConfig(base.config, usage);
  return deps;
}
