import { type Clock, systemClock } from './clock';
import { type Config, readConfig } from './config';
import { cryptoRandom, type Random } from './crypto/random';
import { argon2idHasher, type PasswordHasher } from './crypto/password';
import { createLogger, type Logger } from './log';
import { createDynamo, type Dynamo } from './store/dynamo';
import { type AttemptCounter, dynamoAttemptCounter } from './store/login-attempts';
import { dynamoSessionStore, type SessionStore } from './store/sessions';
import { dynamoTenantStore, type TenantStore } from './store/tenants';
import { dynamoUserStore, type UserStore } from './store/users';
import { fileKeyProvider, type KeyProvider } from './tokens/signing-keys';

/** The stores of every aggregate, all on one table. */
export interface Stores {
  users: UserStore;
  tenants: TenantStore;
  sessions: SessionStore;
  attempts: AttemptCounter;
}

/** Everything a function needs from the outside world; tests pass their own. */
export interface Deps {
  config: Config;
  clock: Clock;
  random: Random;
  log: Logger;
  store: Stores;
  hasher: PasswordHasher;
  keys: KeyProvider;
}

export function dynamoStores(dynamo: Dynamo): Stores {
  return {
    users: dynamoUserStore(dynamo),
    tenants: dynamoTenantStore(dynamo),
    sessions: dynamoSessionStore(dynamo),
    attempts: dynamoAttemptCounter(dynamo),
  };
}

let defaults: Deps | undefined;

/** Production dependencies, built once per Lambda instance. */
export function defaultDeps(): Deps {
  if (defaults) return defaults;
  const config = readConfig();
  const dynamo = createDynamo({ tableName: config.tableName, region: config.awsRegion, endpoint: config.dynamodbEndpoint });
  defaults = {
    config,
    clock: systemClock,
    random: cryptoRandom,
    log: createLogger(config.logLevel),
    store: dynamoStores(dynamo),
    hasher: argon2idHasher(),
    keys: config.signingKeys.source === 'file' ? fileKeyProvider(config.signingKeys.path) : secretsManagerPlaceholder(),
  };
  return defaults;
}

function secretsManagerPlaceholder(): KeyProvider {
  return {
    load: () => Promise.reject(new Error('SIGNING_KEYS_SOURCE=secretsmanager is not available in this build')),
  };
}
