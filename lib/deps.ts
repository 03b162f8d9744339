import { type DeviceTokens, deviceTokens } from './abuse/device-token';
import { quotaDelivery } from './abuse/send-quota';
import { awsClientSettings, awsJsonCall, KMS } from './aws';
import { type Clock, systemClock } from './clock';
import { type Config, ConfigError, readConfig } from './config';
import type { PasswordHasher } from './crypto/password';
import { cryptoRandom, type Random } from './crypto/random';
import type { PendingEvent } from './events/event';
import { carryingEvents, dynamoEventStore, type EventStore } from './events/outbox';
import type { RequestSource } from './http/request-source';
import { createLogger, type Logger } from './log';
import { type CodeDelivery, deliveryByMethod, outboxDelivery, sesDelivery, snsDelivery } from './mfa/delivery';
import { fileDataKeys } from './mfa/file-data-keys';
import { kmsDataKeys } from './mfa/kms-data-keys';
import { type DataKeySource, type SecretBox, secretBox } from './mfa/secret-box';
import { type ClientSecretHasher, clientSecretHasher, pepperLoader } from './oauth/client-secret';
import { type DpopNonces, dpopNonces } from './oauth/dpop-nonce';
import type { SecretsClient } from './secrets/location';
import { secretsManagerReader } from './secrets/secrets-manager';
import type { AccountCodeStore } from './store/account-codes';
import type { AuditStore } from './store/audit';
import type { DeviceCodeStore } from './store/device-codes';
import type { DpopProofStore } from './store/dpop-proofs';
import { createDynamo, type Dynamo, lambdaCredentials } from './store/dynamo';
import {
  type ConnectionStore,
  type DomainStore,
  dynamoConnectionStore,
  dynamoDomainStore,
  dynamoFederatedIdentityStore,
  dynamoFederationRequestStore,
  dynamoSamlAssertionStore,
  type FederatedIdentityStore,
  type FederationRequestStore,
  type SamlAssertionStore,
} from './store/federation';
import type { InteractionStore } from './store/interactions';
import type { InvitationStore } from './store/invitations';
import type { AttemptCounter } from './store/login-attempts';
import type { MfaStore } from './store/mfa';
import type { OAuthClientStore } from './store/oauth-clients';
import type { AuthorizationCodeStore } from './store/oauth-codes';
import type { OAuthGrantStore } from './store/oauth-grants';
import { onFirstCall } from './store/on-first-call';
import type { PasskeyStore } from './store/passkeys';
import type { ScimTokenStore } from './store/scim-tokens';
import type { SessionStore } from './store/sessions';
import type { ShopStore } from './store/shops';
import type { TenantUserStore } from './store/tenant-users';
import type { TenantStore } from './store/tenants';
import type { UserStore } from './store/users';
import type { DeliveryLogStore, WebhookStore } from './store/webhooks';
import { secretsManagerKeyProvider, secretsManagerPublicKeyProvider } from './tokens/secrets-manager-keys';
import { fileKeyProvider, filePublicKeyProvider, type KeyProvider, type PublicKeyProvider } from './tokens/signing-keys';

/** The stores of every aggregate, all on one table. */
export interface Stores {
  users: UserStore;
  tenants: TenantStore;
  sessions: SessionStore;
  attempts: AttemptCounter;
  oauthClients: OAuthClientStore;
  authorizationCodes: AuthorizationCodeStore;
  oauthGrants: OAuthGrantStore;
  mfa: MfaStore;
  /** The tenant administration's view of users (docs/api.md 9). */
  tenantUsers: TenantUserStore;
  /** A tenant's shops (docs/api.md 9.7). */
  shops: ShopStore;
  /** The audit trail (docs/api.md 9.8). */
  audit: AuditStore;
  /** Password reset and email verification codes (docs/api.md 8.7, 8.8). */
  accountCodes: AccountCodeStore;
  /** Pending browser sign-ins (docs/api.md 11.5). */
  interactions: InteractionStore;
  /** Passkeys and their challenges (docs/api.md 12). */
  passkeys: PasskeyStore;
  /** Invitations of staff (docs/api.md 13.1). */
  invitations: InvitationStore;
  /** SCIM tokens (docs/api.md 13.3). */
  scimTokens: ScimTokenStore;
  /** Federation (docs/api.md 14): connections, domains, linked identities, pending sign-ins, SAML assertion ids. */
  connections: ConnectionStore;
  domains: DomainStore;
  federatedIdentities: FederatedIdentityStore;
  federationRequests: FederationRequestStore;
  samlAssertions: SamlAssertionStore;
  /** The DPoP replay cache (docs/api.md 16.3). */
  dpopProofs: DpopProofStore;
  /** Device authorizations and their user codes (docs/api.md 16.4). */
  deviceCodes: DeviceCodeStore;
  /** Events whose change is nothing else (docs/events.md, How events leave). */
  events: EventStore;
  /** A tenant's webhooks (docs/api.md 17.2). */
  webhooks: WebhookStore;
  /** What became of each delivery to a webhook or a back-channel logout URI (docs/api.md 17.2). */
  deliveryLog: DeliveryLogStore;
  /**
   * The same stores, whose next write carries `events` (docs/events.md, How events
   * leave): the change and its events are written together or not at all.
   */
  emitting(events: PendingEvent[]): Stores;
}

/** Everything a function needs from the outside world; tests pass their own. */
export interface Deps {
  config: Config;
  clock: Clock;
  random: Random;
  log: Logger;
  store: Stores;
  hasher: PasswordHasher;
  /** The signing keys, private: only the functions that sign load them. */
  keys: KeyProvider;
  /** The public keys: what the verify-only functions load (docs/api.md 4.11; docs/guides/operators.md, Key rotation). */
  publicKeys: PublicKeyProvider;
  /** Encrypts TOTP secrets and digests one-time codes (lib/mfa/secret-box). */
  mfaSecrets: SecretBox;
  /** Sends SMS/EMAIL one-time codes and security notifications: SNS/SES in AWS, the outbox locally. */
  mfaDelivery: CodeDelivery;
  /** Hashes and checks OAuth client secrets under the configured pepper (lib/oauth/client-secret). */
  clientSecretHasher: ClientSecretHasher;
  /** Where the current request came from (the audit trail's); set per request by lib/http/handler.ts. */
  source?: RequestSource | undefined;
  /** Issues and checks the device tokens of the login lockout (lib/abuse/device-token), keyed by the same peppers. */
  deviceTokens: DeviceTokens;
  /** The DPoP server nonces of the token endpoint (lib/oauth/dpop-nonce), keyed by the same peppers. */
  dpopNonces: DpopNonces;
  /**
   * The least time a forgotten-password request takes to answer, so that its timing never
   * tells whether the account exists (docs/api.md 8.7); unset, as in every function:
   * FORGOT_ANSWER_FLOOR_MS (lib/users/password-reset.ts). Only tests lower it, where the
   * floor is not their subject (test/helpers/deps.ts).
   */
  forgotAnswerFloorMs?: number | undefined;
}

/**
 * Every store on one DynamoDB table; `random` marks write-once writes, `clock` tells when a
 * deleted client's id is free again. Each store's module loads on the first call of one of
 * its methods (lib/store/on-first-call.ts): a function loads the stores it uses, not all.
 * The federation stores are built as they are (one of their methods is synchronous).
 */
export function dynamoStores(dynamo: Dynamo, { random, clock }: Pick<Deps, 'random' | 'clock'>): Stores {
  const users = onFirstCall(async () => (await import('./store/users')).dynamoUserStore(dynamo, random));
  return {
    users,
    tenants: tenantStore(dynamo),
    sessions: onFirstCall(async () => (await import('./store/sessions')).dynamoSessionStore(dynamo, random)),
    attempts: attemptCounter(dynamo),
    oauthClients: onFirstCall(async () => (await import('./store/oauth-clients')).dynamoOAuthClientStore(dynamo, random, clock)),
    authorizationCodes: onFirstCall(async () => (await import('./store/oauth-codes')).dynamoAuthorizationCodeStore(dynamo, random)),
    oauthGrants: onFirstCall(async () => (await import('./store/oauth-grants')).dynamoOAuthGrantStore(dynamo, random)),
    mfa: onFirstCall(async () => (await import('./store/mfa')).dynamoMfaStore(dynamo, random)),
    tenantUsers: onFirstCall(async () => (await import('./store/tenant-users')).dynamoTenantUserStore(dynamo, random)),
    shops: onFirstCall(async () => (await import('./store/shops')).dynamoShopStore(dynamo, random)),
    audit: onFirstCall(async () => (await import('./store/audit')).dynamoAuditStore(dynamo)),
    accountCodes: onFirstCall(async () => (await import('./store/account-codes')).dynamoAccountCodeStore(dynamo, random)),
    interactions: onFirstCall(async () => (await import('./store/interactions')).dynamoInteractionStore(dynamo, random)),
    passkeys: onFirstCall(async () => (await import('./store/passkeys')).dynamoPasskeyStore(dynamo, random)),
    invitations: onFirstCall(async () => (await import('./store/invitations')).dynamoInvitationStore(dynamo, random, users)),
    scimTokens: onFirstCall(async () => (await import('./store/scim-tokens')).dynamoScimTokenStore(dynamo, random)),
    connections: dynamoConnectionStore(dynamo, random),
    domains: dynamoDomainStore(dynamo, random),
    federatedIdentities: dynamoFederatedIdentityStore(dynamo, random, users),
    federationRequests: dynamoFederationRequestStore(dynamo, random),
    samlAssertions: dynamoSamlAssertionStore(dynamo, random),
    dpopProofs: onFirstCall(async () => (await import('./store/dpop-proofs')).dynamoDpopProofStore(dynamo, random)),
    deviceCodes: onFirstCall(async () => (await import('./store/device-codes')).dynamoDeviceCodeStore(dynamo, random)),
    events: dynamoEventStore(dynamo),
    webhooks: onFirstCall(async () => (await import('./store/webhooks')).dynamoWebhookStore(dynamo)),
    deliveryLog: onFirstCall(async () => (await import('./store/webhooks')).dynamoDeliveryLogStore(dynamo)),
    emitting: (events) => dynamoStores(carryingEvents(dynamo, events), { random, clock }),
  };
}

const tenantStore = (dynamo: Dynamo) => onFirstCall(async () => (await import('./store/tenants')).dynamoTenantStore(dynamo));
const attemptCounter = (dynamo: Dynamo) => onFirstCall(async () => (await import('./store/login-attempts')).dynamoAttemptCounter(dynamo));

/**
 * An AWS SDK client made on first use: its package (tens of ms each) is loaded only by
 * functions that use it, not at every cold start.
 */
function onFirstUse<C extends { send: unknown }>(create: () => Promise<C>): Pick<C, 'send'> {
  let client: Promise<C> | undefined;
  const send = async (...args: unknown[]) => {
    client ??= create();
    return ((await client).send as (...args: unknown[]) => unknown)(...args);
  };
  return { send } as Pick<C, 'send'>;
}

/**
 * Argon2id (lib/crypto/password) with its native binding loaded on the first hash or
 * verification: only login and register hash passwords, the other functions never load it.
 */
function argon2idOnFirstUse(): PasswordHasher {
  let hasher: Promise<PasswordHasher> | undefined;
  const loaded = () => (hasher ??= import('./crypto/password').then(({ argon2idHasher }) => argon2idHasher()));
  return {
    hash: async (password) => (await loaded()).hash(password),
    verify: async (stored, password) => (await loaded()).verify(stored, password),
    verifyDummy: async (password) => (await loaded()).verifyDummy(password),
  };
}

/** Stands in for an MFA port that is not configured; the functions that use one refuse to start (requireMfaConfig). */
const notConfigured = (variable: string) => async (): Promise<never> => {
  throw new ConfigError(`Missing environment variable ${variable}`);
};

function mfaDataKeys(config: Config): DataKeySource {
  const { dataKeys } = config.mfa;
  const region = config.awsRegion;
  switch (dataKeys.source) {
    case 'kms':
      return kmsDataKeys(awsJsonCall(KMS, { region, credentials: lambdaCredentials() }), dataKeys.keyId);
    case 'file':
      return fileDataKeys(dataKeys.path);
    case 'missing':
      return { current: notConfigured('MFA_KEY_SOURCE'), find: notConfigured('MFA_KEY_SOURCE') };
  }
}

function mfaCodeDelivery(config: Config, dynamo: Dynamo, clock: Clock): CodeDelivery {
  const { delivery, totpIssuer } = config.mfa;
  const region = config.awsRegion;
  switch (delivery.kind) {
    case 'aws':
      return deliveryByMethod({
        SMS: snsDelivery(
          onFirstUse(async () => new (await import('@aws-sdk/client-sns')).SNSClient(await awsClientSettings(region))),
          totpIssuer,
        ),
        EMAIL: sesDelivery(
          onFirstUse(async () => new (await import('@aws-sdk/client-sesv2')).SESv2Client(await awsClientSettings(region))),
          delivery.emailFrom,
          totpIssuer,
        ),
      });
    case 'outbox':
      return outboxDelivery(
        onFirstCall(async () => (await import('./store/mfa')).dynamoMfaOutbox(dynamo)),
        clock,
      );
    case 'missing':
      return { send: notConfigured('MFA_DELIVERY') };
  }
}

/** The MFA ports as configured (lib/config.ts, MFA_DELIVERY and MFA_KEY_SOURCE). */
export function mfaPorts(config: Config, dynamo: Dynamo, clock: Clock): Pick<Deps, 'mfaSecrets' | 'mfaDelivery'> {
  const delivery = quotaDelivery(
    mfaCodeDelivery(config, dynamo, clock),
    attemptCounter(dynamo),
    clock,
    config.sendQuotas,
    tenantStore(dynamo),
  );
  return { mfaSecrets: secretBox(mfaDataKeys(config)), mfaDelivery: delivery };
}

let defaults: Deps | undefined;

/** Production dependencies, built once per Lambda instance. */
export function defaultDeps(): Deps {
  if (defaults) return defaults;
  const config = readConfig();
  const dynamo = createDynamo({ tableName: config.tableName, region: config.awsRegion, endpoint: config.dynamodbEndpoint });
  const log = createLogger(config.logLevel);
  const secretsManagerSdk = onFirstUse(
    async () => new (await import('@aws-sdk/client-secrets-manager')).SecretsManagerClient(await awsClientSettings(config.awsRegion)),
  );
  const secretsManager: SecretsClient = {
    getSecretValue: secretsManagerReader({ region: config.awsRegion, credentials: lambdaCredentials() }),
    send: secretsManagerSdk.send,
  };
  const { signingKeys } = config;
  const [keys, publicKeys] =
    signingKeys.source === 'file'
      ? [fileKeyProvider(signingKeys.path, systemClock, log), filePublicKeyProvider(signingKeys.publicPath, systemClock, log)]
      : [
          secretsManagerKeyProvider(secretsManager, signingKeys.secretId, systemClock, log),
          secretsManagerPublicKeyProvider(secretsManager, signingKeys.publicSecretId, systemClock, log),
        ];
  const peppers = pepperLoader(config.oauthClientSecretPepper, secretsManager, { clock: systemClock, log });
  defaults = {
    config,
    clock: systemClock,
    random: cryptoRandom,
    log,
    store: dynamoStores(dynamo, { random: cryptoRandom, clock: systemClock }),
    hasher: argon2idOnFirstUse(),
    keys,
    publicKeys,
    ...mfaPorts(config, dynamo, systemClock),
    clientSecretHasher: clientSecretHasher(peppers),
    deviceTokens: deviceTokens(peppers, cryptoRandom),
    dpopNonces: dpopNonces(peppers),
  };
  return defaults;
}
