import { isIP } from 'node:net';
import { CANONICAL_ID } from './http/schemas';

/**
 * Configuration: every environment variable the service reads, read and checked
 * once. Anything wrong fails the cold start with a message naming the variable.
 */

export interface Config {
  /** Public base URL of the API: the `iss` of every token and the metadata `issuer`. */
  issuer: string;
  /** `aud` of first-party session access tokens. */
  accessTokenAudience: string;
  /**
   * `aud` of OAuth access tokens asked for without `resource` (RFC 8707): the platform's
   * default resource server (`OAUTH_DEFAULT_AUDIENCE`); unset, the client id.
   */
  oauthDefaultAudience: string | undefined;
  accessTokenTtlSeconds: number;
  /** Absolute lifetime of a session (and so of its refresh tokens). */
  sessionMaxAgeSeconds: number;
  /** How long a proof of the password or a factor counts as recent (docs/api.md 8.1). */
  reauthMaxAgeSeconds: number;
  defaultTenantId: string;
  defaultShopId: string;
  tableName: string;
  /** Set locally to DynamoDB Local's URL; unset in AWS. */
  dynamodbEndpoint: string | undefined;
  awsRegion: string;
  /** Origins allowed by CORS; `*` is refused because credentials travel in headers. */
  corsAllowedOrigins: string[];
  /**
   * Where signing keys come from: a local file (generated on first run) or AWS Secrets
   * Manager; and beside them the public keys, all the verify-only functions read.
   */
  signingKeys:
    | { source: 'file'; path: string; publicPath: string }
    | { source: 'secretsmanager'; secretId: string; publicSecretId: string };
  logLevel: 'debug' | 'info' | 'warn' | 'error';
  /**
   * Key of the OAuth client-secret hashes (HMAC-SHA-256): `OAUTH_CLIENT_SECRET_PEPPER`,
   * else in AWS the Secrets Manager secret `OAUTH_CLIENT_SECRET_PEPPER_SECRET_ID` (read at
   * the first request), else locally a file generated on first use (under .data/).
   */
  oauthClientSecretPepper:
    | { source: 'env'; value: string }
    | { source: 'secretsmanager'; secretId: string; region: string }
    | { source: 'file'; path: string }
    | { source: 'missing' };
  mfa: MfaConfig;
  /**
   * The audit trail (docs/api.md 9.8): `AUDIT_SHARDS` write partitions per tenant. Only
   * ever raise it: events in partitions beyond a lowered count are no longer read.
   */
  audit: { shards: number };
  /**
   * Messages the delivery port may send per hour, per scope (lib/abuse/send-quota.ts);
   * a tenant younger than a day gets `newTenant` instead of `tenant`, and all of those
   * tenants together `newTenants`. Security notifications have windows of their own
   * (`notification*`), the service-wide one larger than the per-destination one.
   */
  sendQuotas: {
    destination: number;
    user: number;
    tenant: number;
    global: number;
    newTenant: number;
    newTenants: number;
    notificationUser: number;
    notificationDestination: number;
    notificationGlobal: number;
    /** Invitation emails one tenant may send (docs/api.md 13.1), counted apart from codes and notices. */
    invitationTenant: number;
  };
  /** Failed logins one source address (an IPv6 /64) may make in 15 minutes, across accounts (docs/api.md 10). */
  loginFailuresPerSource: number;
  /** Failed OAuth client authentications one source address may make in 15 minutes, across clients (docs/api.md 10.1). */
  clientAuthFailuresPerSource: number;
  /** Passkeys (docs/api.md 12): the relying party and the origins its ceremonies may come from. */
  webauthn: WebAuthnConfig;
  /**
   * The DNS servers domain verification asks (docs/api.md 14.2), `host:port` each
   * (`DNS_SERVERS`, comma-separated); empty: the system's.
   */
  dnsServers: string[];
  /**
   * Identity providers may be plain `http` on a loopback host (docs/api.md 14.1): only
   * against DynamoDB Local (`npm start`, the tests), never in a deployed stage.
   */
  loopbackIdentityProviders: boolean;
  /**
   * Whether the token endpoint requires a server nonce in DPoP proofs (`DPOP_REQUIRE_NONCE`,
   * `true` or `false`, default false; docs/api.md 16.3).
   */
  dpopNonceRequired: boolean;
  /**
   * Where published events go (docs/api.md 17.1): the EventBridge bus `EVENT_BUS_NAME` in
   * AWS; locally the JSON-lines file `EVENTS_FILE` that `npm run events` prints. Only the
   * publisher reads them. `DELIVERY_QUEUE_URL`: the SQS queue where deliveries wait for
   * their attempts (docs/api.md 17.2); unset locally, where they wait in the process.
   */
  events: { busName: string | undefined; file: string | undefined; deliveryQueueUrl: string | undefined };
}

/**
 * WebAuthn (docs/api.md 12): `WEBAUTHN_RP_ID` is the domain passkeys are bound to,
 * `WEBAUTHN_ORIGINS` the pages (scheme, host, port) allowed to run the ceremonies; each
 * origin's host is the RP ID or a subdomain of it (WebAuthn Level 3, 5.1.3 step 9).
 */
export interface WebAuthnConfig {
  rpId: string;
  /** The name authenticators show next to the passkey. */
  rpName: string;
  origins: string[];
}

/** MFA (docs/api.md 4.4): where one-time codes go, where the key of TOTP secrets comes from. */
export interface MfaConfig {
  /**
   * `outbox`: codes are written to the table for developers (local only); `aws`: SNS
   * (SMS) and SES (EMAIL); `missing`: not configured in AWS Lambda (see requireMfaConfig).
   */
  delivery: { kind: 'outbox' } | { kind: 'aws'; emailFrom: string } | { kind: 'missing' };
  /** The data key of TOTP secrets and code digests: a local file, AWS KMS envelope encryption, or `missing`. */
  dataKeys: { source: 'file'; path: string } | { source: 'kms'; keyId: string } | { source: 'missing' };
  /** The issuer authenticator apps show next to the account (`otpauth://` URI). */
  totpIssuer: string;
  /**
   * E.164 prefixes SMS codes may go to (`MFA_SMS_COUNTRIES`, e.g. `+1,+44,+49`), against
   * premium-rate and far-away numbers; unset: `+1` in AWS Lambda, any locally.
   */
  smsCountries: string[] | 'any';
}

type Env = Record<string, string | undefined>;

export class ConfigError extends Error {
  override name = 'ConfigError';
}

function str(env: Env, name: string, fallback?: string): string {
  const value = env[name]?.trim();
  if (value) return value;
  if (fallback !== undefined) return fallback;
  throw new ConfigError(`Missing environment variable ${name}`);
}

function int(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name]?.trim();
  if (!raw) return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new ConfigError(`Environment variable ${name} must be an integer from ${min} to ${max}, got "${raw}"`);
  }
  return value;
}

function url(env: Env, name: string, fallback: string): string {
  const value = str(env, name, fallback).replace(/\/+$/, '');
  try {
    const parsed = new URL(value);
    if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') throw new Error();
  } catch {
    throw new ConfigError(`Environment variable ${name} must be an absolute http(s) URL, got "${value}"`);
  }
  return value;
}

/** A tenant or shop id in the canonical form requests must use (docs/api.md 10.2). */
function canonicalId(env: Env, name: string, fallback: string): string {
  const value = str(env, name, fallback);
  if (!CANONICAL_ID.test(value)) {
    throw new ConfigError(`Environment variable ${name} must be 3 to 63 lower-case letters, digits and hyphens, got "${value}"`);
  }
  return value;
}

/** An optional absolute http(s) URI, kept as given (a resource indicator, RFC 8707 2). */
function optionalUrl(env: Env, name: string): string | undefined {
  const value = env[name]?.trim();
  if (!value) return undefined;
  if (!URL.canParse(value) || !/^https?:\/\/[^#]+$/.test(value)) {
    throw new ConfigError(`Environment variable ${name} must be an absolute http(s) URI without fragment, got "${value}"`);
  }
  return value;
}

function oneOf<T extends string>(env: Env, name: string, allowed: readonly T[], fallback: T): T {
  const value = str(env, name, fallback);
  if (!(allowed as readonly string[]).includes(value)) {
    throw new ConfigError(`Environment variable ${name} must be one of ${allowed.join(', ')}, got "${value}"`);
  }
  return value as T;
}

/**
 * Settings whose defaults fit only local development (`localhost`, a file on one disk):
 * in AWS Lambda each must be set, or the cold start fails naming it, rather than, say,
 * bind passkeys to `localhost`. serverless.yml gives them to every function.
 */
export const REQUIRED_IN_LAMBDA = [
  'TABLE_NAME',
  'ISSUER',
  'CORS_ALLOWED_ORIGINS',
  'SIGNING_KEYS_SOURCE',
  'WEBAUTHN_RP_ID',
  'WEBAUTHN_ORIGINS',
] as const;

/**
 * Running in AWS Lambda itself, not against DynamoDB Local (`npm start`, serverless-offline
 * and the tests all set its endpoint). `IS_OFFLINE` alone does not count: a deployed
 * function given it by mistake must not fall back to the outbox or the key file.
 */
function inAwsLambda(env: Env): boolean {
  return Boolean(env.AWS_LAMBDA_FUNCTION_NAME?.trim()) && !env.DYNAMODB_ENDPOINT?.trim();
}

/** Reads and checks the configuration from an environment (`process.env` by default). */
export function readConfig(env: Env = process.env): Config {
  if (inAwsLambda(env)) {
    const missing = REQUIRED_IN_LAMBDA.find((name) => !env[name]?.trim());
    if (missing) throw new ConfigError(`Missing environment variable ${missing}: in AWS Lambda it has no default`);
  }
  const corsAllowedOrigins = str(env, 'CORS_ALLOWED_ORIGINS', 'http://localhost:5173')
    .split(',')
    .map((origin) => origin.trim())
    .filter(Boolean);
  if (corsAllowedOrigins.includes('*')) {
    throw new ConfigError('Environment variable CORS_ALLOWED_ORIGINS must list origins, not "*"');
  }
  const keySource = oneOf(env, 'SIGNING_KEYS_SOURCE', ['file', 'secretsmanager'] as const, 'file');
  return {
    issuer: url(env, 'ISSUER', 'http://localhost:3000'),
    accessTokenAudience: str(env, 'ACCESS_TOKEN_AUDIENCE', 'identity-service'),
    oauthDefaultAudience: optionalUrl(env, 'OAUTH_DEFAULT_AUDIENCE'),
    accessTokenTtlSeconds: int(env, 'ACCESS_TOKEN_TTL_SECONDS', 900, 60, 3600),
    sessionMaxAgeSeconds: int(env, 'SESSION_MAX_AGE_SECONDS', 30 * 24 * 3600, 3600, 30 * 24 * 3600),
    reauthMaxAgeSeconds: int(env, 'REAUTH_MAX_AGE_SECONDS', 600, 60, 24 * 3600),
    defaultTenantId: canonicalId(env, 'DEFAULT_TENANT_ID', 'default'),
    defaultShopId: canonicalId(env, 'DEFAULT_SHOP_ID', 'default'),
    tableName: str(env, 'TABLE_NAME', 'identity'),
    dynamodbEndpoint: env.DYNAMODB_ENDPOINT?.trim() || undefined,
    awsRegion: str(env, 'AWS_REGION', 'us-east-1'),
    corsAllowedOrigins,
    signingKeys: keySource === 'file' ? signingKeysFiles(env) : signingKeysSecrets(env),
    logLevel: oneOf(env, 'LOG_LEVEL', ['debug', 'info', 'warn', 'error'] as const, 'info'),
    mfa: readMfaConfig(env),
    sendQuotas: {
      destination: int(env, 'SEND_QUOTA_PER_DESTINATION', 5, 1, 1000),
      user: int(env, 'SEND_QUOTA_PER_USER', 10, 1, 1000),
      tenant: int(env, 'SEND_QUOTA_PER_TENANT', 100, 1, 1_000_000),
      global: int(env, 'SEND_QUOTA_GLOBAL', 2000, 1, 10_000_000),
      newTenant: int(env, 'SEND_QUOTA_PER_NEW_TENANT', 10, 1, 1000),
      newTenants: int(env, 'SEND_QUOTA_NEW_TENANTS', 100, 1, 1_000_000),
      ...readNotificationQuotas(env),
      invitationTenant: int(env, 'INVITE_QUOTA_PER_TENANT', 50, 1, 10_000),
    },
    loginFailuresPerSource: int(env, 'LOGIN_FAILURES_PER_SOURCE', 100, 1, 10_000_000),
    clientAuthFailuresPerSource: int(env, 'CLIENT_AUTH_FAILURES_PER_SOURCE', 100, 1, 10_000_000),
    oauthClientSecretPepper: readClientSecretPepper(env),
    audit: { shards: int(env, 'AUDIT_SHARDS', 8, 1, 64) },
    webauthn: readWebAuthnConfig(env),
    dnsServers: readDnsServers(env),
    loopbackIdentityProviders: Boolean(env.DYNAMODB_ENDPOINT?.trim()),
    dpopNonceRequired: readFlag(env, 'DPOP_REQUIRE_NONCE'),
    events: {
      busName: env.EVENT_BUS_NAME?.trim() || undefined,
      file: env.EVENTS_FILE?.trim() || undefined,
      deliveryQueueUrl: env.DELIVERY_QUEUE_URL?.trim() || undefined,
    },
  };
}

/** A `true`/`false` setting, false when unset. */
function readFlag(env: Env, name: string): boolean {
  const raw = env[name]?.trim();
  if (!raw || raw === 'false') return false;
  if (raw === 'true') return true;
  throw new ConfigError(`Environment variable ${name} must be true or false`);
}

/** `DNS_SERVERS`: `address:port` (IPv6 in brackets, `[::1]:53`), comma-separated (docs/api.md 14.2). */
function readDnsServers(env: Env): string[] {
  const raw = env.DNS_SERVERS?.trim();
  if (!raw) return [];
  const servers = raw.split(',').map((server) => server.trim());
  for (const server of servers) {
    const match = /^(?:\[([^\]]+)\]|([0-9.]+)):(\d{1,5})$/.exec(server);
    const address = match?.[1] ?? match?.[2] ?? '';
    const port = Number(match?.[3]);
    if (isIP(address) === 0 || (match?.[1] !== undefined && isIP(address) !== 6) || port < 1 || port > 65_535) {
      throw new ConfigError(`Environment variable DNS_SERVERS must list IP address:port pairs, comma-separated, got "${raw}"`);
    }
  }
  return servers;
}

/**
 * The windows of security notifications (docs/api.md 8.9, 10.4): generous per user, so
 * that the events anyone can cause (a lockout, at most a few a day) never fill them; and
 * the service-wide one larger than the per-destination one, so that no single address
 * can exhaust it for everyone else.
 */
function readNotificationQuotas(env: Env) {
  const notificationUser = int(env, 'NOTIFY_QUOTA_PER_USER', 20, 5, 1000);
  const notificationDestination = int(env, 'NOTIFY_QUOTA_PER_DESTINATION', 50, 5, 10_000);
  const notificationGlobal = int(env, 'NOTIFY_QUOTA_GLOBAL', 20_000, 10, 10_000_000);
  if (notificationGlobal <= notificationDestination)
    throw new ConfigError(
      `Environment variable NOTIFY_QUOTA_GLOBAL must be larger than NOTIFY_QUOTA_PER_DESTINATION (${notificationDestination}), got "${notificationGlobal}"`,
    );
  return { notificationUser, notificationDestination, notificationGlobal };
}

/** Locally the defaults fit `npm start` (serverless-offline on http://localhost:3000). */
function readWebAuthnConfig(env: Env): WebAuthnConfig {
  const rpId = str(env, 'WEBAUTHN_RP_ID', 'localhost').toLowerCase();
  if (!/^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$/.test(rpId)) {
    throw new ConfigError(`Environment variable WEBAUTHN_RP_ID must be a domain name, got "${rpId}"`);
  }
  const origins = str(env, 'WEBAUTHN_ORIGINS', 'http://localhost:3000')
    .split(',')
    .map((origin) => origin.trim())
    .filter(Boolean);
  for (const origin of origins) {
    const parsed = URL.canParse(origin) ? new URL(origin) : undefined;
    const local = parsed?.protocol === 'http:' && (parsed.hostname === 'localhost' || parsed.hostname.endsWith('.localhost'));
    if (!parsed || parsed.origin !== origin || (parsed.protocol !== 'https:' && !local)) {
      throw new ConfigError(`Environment variable WEBAUTHN_ORIGINS must list https origins (http only for localhost), got "${origin}"`);
    }
    if (parsed.hostname !== rpId && !parsed.hostname.endsWith(`.${rpId}`)) {
      throw new ConfigError(
        `Environment variable WEBAUTHN_ORIGINS: the host of "${origin}" is not WEBAUTHN_RP_ID "${rpId}" or a subdomain of it`,
      );
    }
  }
  return { rpId, rpName: str(env, 'WEBAUTHN_RP_NAME', 'Identity Service'), origins };
}

/** The local public keys file beside a keys file: `.data/signing-keys.json` → `.data/signing-keys.public.json`. */
export function publicKeysPath(keysPath: string): string {
  return keysPath.endsWith('.json') ? `${keysPath.slice(0, -'.json'.length)}.public.json` : `${keysPath}.public`;
}

function signingKeysFiles(env: Env): Config['signingKeys'] {
  const path = str(env, 'SIGNING_KEYS_FILE', '.data/signing-keys.json');
  return { source: 'file', path, publicPath: str(env, 'SIGNING_PUBLIC_KEYS_FILE', publicKeysPath(path)) };
}

function signingKeysSecrets(env: Env): Config['signingKeys'] {
  const secretId = str(env, 'SIGNING_KEYS_SECRET_ID');
  return { source: 'secretsmanager', secretId, publicSecretId: str(env, 'SIGNING_PUBLIC_KEYS_SECRET_ID', `${secretId}-public`) };
}

/**
 * The outbox keeps codes in the clear and a key file lives on one machine's disk:
 * both are refused in AWS Lambda unless the table is DynamoDB Local (serverless-offline).
 * There, without MFA_DELIVERY / MFA_KEY_SOURCE the setting is `missing`: only the
 * functions that do MFA need it, and they refuse to start without it (requireMfaConfig).
 */
function readMfaConfig(env: Env): MfaConfig {
  const inAws = inAwsLambda(env);
  const delivery = oneOf(env, 'MFA_DELIVERY', ['outbox', 'aws'] as const, 'outbox');
  const keySource = oneOf(env, 'MFA_KEY_SOURCE', ['file', 'kms'] as const, 'file');
  if (inAws && env.MFA_DELIVERY?.trim() === 'outbox') {
    throw new ConfigError('Environment variable MFA_DELIVERY must be "aws" in AWS Lambda: the outbox is for local development only');
  }
  if (inAws && env.MFA_KEY_SOURCE?.trim() === 'file') {
    throw new ConfigError('Environment variable MFA_KEY_SOURCE must be "kms" in AWS Lambda: the key file is for local development only');
  }
  const emailFrom = delivery === 'aws' ? str(env, 'MFA_EMAIL_FROM') : '';
  if (delivery === 'aws' && !/^[^\s@]+@[^\s@]+$/.test(emailFrom.replace(/^.*<(.*)>$/, '$1'))) {
    throw new ConfigError(`Environment variable MFA_EMAIL_FROM must be an email address, got "${emailFrom}"`);
  }
  return {
    delivery: delivery === 'aws' ? { kind: 'aws', emailFrom } : inAws ? { kind: 'missing' } : { kind: 'outbox' },
    dataKeys:
      keySource === 'kms'
        ? { source: 'kms', keyId: str(env, 'KMS_KEY_ID') }
        : inAws
          ? { source: 'missing' }
          : { source: 'file', path: str(env, 'MFA_KEY_FILE', '.data/mfa-key.json') },
    totpIssuer: str(env, 'TOTP_ISSUER', 'Identity Service'),
    smsCountries: smsCountries(env, inAws),
  };
}

function smsCountries(env: Env, inAws: boolean): string[] | 'any' {
  const raw = env.MFA_SMS_COUNTRIES?.trim();
  if (!raw) return inAws ? ['+1'] : 'any';
  const prefixes = raw.split(',').map((prefix) => prefix.trim());
  if (!prefixes.every((prefix) => /^\+[1-9][0-9]{0,3}$/.test(prefix))) {
    throw new ConfigError(`Environment variable MFA_SMS_COUNTRIES must list E.164 prefixes like +1,+44, got "${raw}"`);
  }
  return prefixes;
}

/**
 * Fails the cold start of a function that does MFA (login, enableMFA, verifyMFA)
 * when MFA is not configured; the other functions start without it.
 */
export function requireMfaConfig(config: Pick<Config, 'mfa'>): void {
  if (config.mfa.delivery.kind === 'missing') {
    throw new ConfigError('Missing environment variable MFA_DELIVERY: in AWS Lambda set it to "aws" (with MFA_EMAIL_FROM)');
  }
  if (config.mfa.dataKeys.source === 'missing') {
    throw new ConfigError('Missing environment variable MFA_KEY_SOURCE: in AWS Lambda set it to "kms" (with KMS_KEY_ID)');
  }
}

/**
 * The pepper of OAuth client-secret hashes: from the environment (at least 32
 * characters); in AWS from its Secrets Manager secret (serverless.yml), so that it is
 * in no function's configuration; locally (DynamoDB Local) a file generated on first
 * use. A file lives on one machine's disk, so in AWS Lambda without a secret the
 * pepper is `missing`: only the functions that hash client secrets need it, and they
 * refuse to start without it (lib/oauth/client-secret.ts).
 */
function readClientSecretPepper(env: Env): Config['oauthClientSecretPepper'] {
  const pepper = env.OAUTH_CLIENT_SECRET_PEPPER?.trim();
  if (pepper) {
    if (pepper.length < 32) throw new ConfigError('Environment variable OAUTH_CLIENT_SECRET_PEPPER must be at least 32 characters');
    return { source: 'env', value: pepper };
  }
  const local = Boolean(env.DYNAMODB_ENDPOINT?.trim());
  const secretId = env.OAUTH_CLIENT_SECRET_PEPPER_SECRET_ID?.trim();
  if (secretId && !local) return { source: 'secretsmanager', secretId, region: str(env, 'AWS_REGION', 'us-east-1') };
  if (env.AWS_LAMBDA_FUNCTION_NAME?.trim() && !local) return { source: 'missing' };
  return { source: 'file', path: str(env, 'OAUTH_CLIENT_SECRET_PEPPER_FILE', '.data/oauth-client-secret-pepper') };
}
