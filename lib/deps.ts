import { type Clock, systemClock } from './clock';
import { type Config, readConfig } from './config';
import { cryptoRandom, type Random } from './crypto/random';
import { argon2idHasher, type PasswordHasher } from './crypto/password';
import { createLogger, type Logger } from './log';
import { createDynamo, type Dynamo } from './store/dynamo';
import { type AttemptCounter, dynamoAttemptCounter } from './store/login-attempts';
import { type AuthorizationCodeStore, dynamoAuthorizationCodeStore } from './store/oauth-codes';
import { dynamoOAuthClientStore, type OAuthClientStore } from './store/oauth-clients';
import { dynamoOAuthGrantStore, type OAuthGrantStore } from './store/oauth-grants';
import { dynamoSessionStore, type SessionStore } from './store/sessions';
import { dynamoTenantStore, type TenantStore } from './store/tenants';
import { dynamoUserStore, type UserStore } from './store/users';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { secretsManagerKeyProvider } from './tokens/secrets-manager-keys';
import { fileKeyProvider, type KeyProvider } from './tokens/signing-keys';

/** The stores of every aggregate, all on one table. */
export interface Stores {
  users: UserStore;
  tenants: TenantStore;
  sessions: SessionStore;
  attempts: AttemptCounter;
  oauthClients: OAuthClientStore;
  authorizationCodes: AuthorizationCodeStore;
  oauthGrants: OAuthGrantStore;
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
    oauthClients: dynamoOAuthClientStore(dynamo),
    authorizationCodes: dynamoAuthorizationCodeStore(dynamo),
    oauthGrants: dynamoOAuthGrantStore(dynamo),
  };
}

let defaults: Deps | undefined;

/** Production dependencies, built once per Lambda instance. */
export function defaultDeps(): Deps {
  if (defaults) return defaults;
  const config = readConfig();
  const dynamo = createDynamo({ tableName: config.tableName, region: config.awsRegion, endpoint: config.dynamodbEndpoint });
  const log = createLogger(config.logLevel);
  const keys =
    config.signingKeys.source === 'file'
      ? fileKeyProvider(config.signingKeys.path)
      : secretsManagerKeyProvider(new SecretsManagerClient({ region: config.awsRegion }), config.signingKeys.secretId, systemClock, log);
  defaults = {
    config,
    clock: systemClock,
    random: cryptoRandom,
    log,
    store: dynamoStores(dynamo),
    hasher: argon2idHasher(),
    keys,
  };
  return defaults;
}
