import { SECOND_FACTORS } from '../mfa/methods';
import { AMR_VALUES } from '../sessions/session';
import { ROLES } from '../users/user';
import * as z from '../zod';

/**
 * What the audit trail records (docs/api.md 9.8): a closed list, so that a reader can
 * filter on `type` and every writer names one of them. New kinds of event add a type.
 */
export const AUDIT_EVENT_TYPES = [
  // Sign-in outcomes (docs/api.md 4.1).
  'login_succeeded',
  'login_failed',
  'login_locked',
  // A retired refresh token presented again: its session or grant was revoked (4.2, 4.7).
  'refresh_token_reused',
  // The user's own credentials (4.4, 4.5, 8.2).
  'password_changed',
  'password_change_failed',
  'mfa_method_added',
  'mfa_method_activated',
  // Tenant administration (4.3, 4.8, 9).
  'user_registered',
  'admin_user_changed',
  'admin_user_deleted',
  'admin_mfa_reset',
  'admin_user_signed_out',
  'shop_created',
  'oauth_client_created',
  // The rest of the security changes (docs/api.md 8.1, 8.3, 8.4, 8.6-8.8, 9.11-9.13).
  'oauth_client_updated',
  'oauth_client_deleted',
  'oauth_client_secret_rotated',
  'session_revoked',
  'other_sessions_revoked',
  'grant_revoked',
  'mfa_method_removed',
  'recovery_codes_generated',
  'recovery_code_used',
  'reauthenticated',
  'reauthentication_failed',
  'password_reset_requested',
  'password_reset',
  'password_reset_failed',
  'email_changed',
  'email_verified',
  'email_verification_failed',
  // A browser session ended by RP-initiated logout (docs/api.md 11.12).
  'signed_out',
  // The tenant's settings (docs/api.md 9.14).
  'tenant_updated',
  // Passkeys (docs/api.md 12); their sign-ins are login_* events.
  'passkey_registered',
  'passkey_registration_failed',
  'passkey_removed',
  // Invitations (docs/api.md 13.1); the account an accepted one creates is its target.
  'invitation_created',
  'invitation_resent',
  'invitation_revoked',
  'invitation_accepted',
  // SCIM provisioning (docs/api.md 13.3): its tokens, and users it creates; its changes and
  // deletions are admin_user_* events with the token as actor.
  'scim_token_created',
  'scim_token_deleted',
  'user_provisioned',
  // Staff lifecycle (docs/api.md 13.2): one event per import call, with its counts.
  'users_imported',
  // Enterprise sign-in (docs/api.md 14.1, 14.2): the tenant's connections and domains.
  'connection_created',
  'connection_updated',
  'connection_deleted',
  'domain_added',
  'domain_verified',
  'domain_deleted',
  // Device authorization grant (docs/api.md 16.4): a user approved or denied a device on
  // the device page, or entered so many wrong codes that code entry is refused for a while.
  'device_approved',
  'device_denied',
  'device_code_entry_locked',
  // Webhooks (docs/api.md 17.2): never their secret, nor their URL (it may carry a token).
  'webhook_created',
  'webhook_updated',
  'webhook_deleted',
] as const;
export type AuditEventType = (typeof AUDIT_EVENT_TYPES)[number];

/** Why a sign-in (or a password check) failed. */
export const AUDIT_REASONS = [
  'unknown_user',
  'wrong_password',
  'disabled',
  'mfa_required',
  'invalid_mfa_code',
  'mfa_method_not_enabled',
  'password_attempts',
  'mfa_attempts',
  'mfa_method_locked',
  'password_too_common',
  // A reset or verification code that was wrong, expired, used or spent (docs/api.md 8.7, 8.8).
  'invalid_code',
  // Passkeys (docs/api.md 12): a refused ceremony, a counter that went back (a cloned
  // authenticator), a credential registered already, the per-user limit.
  'invalid_passkey',
  'passkey_cloned',
  'passkey_taken',
  'passkey_limit',
  // The registering session ended while the ceremony ran (docs/api.md 12.2).
  'session_ended',
  // A password sign-in of a user whose domain's connection requires the IdP (docs/api.md 14.1).
  'sso_required',
  // A federated sign-in refused (docs/api.md 14.3): no pending request (expired, replayed,
  // unsolicited), another browser, the connection disabled or deleted, the IdP's answer
  // refused by the protocol's checks or a SAML assertion seen before, the IdP unreachable,
  // an email outside the tenant's verified domains, no account to link or provision.
  'federation_expired',
  'federation_wrong_browser',
  'federation_connection_disabled',
  'federation_invalid_response',
  'federation_idp_denied',
  'federation_email_not_verified',
  'federation_replayed',
  'federation_idp_unreachable',
  'federation_domain_not_allowed',
  'federation_no_account',
] as const;

const boundedId = z.string().check(z.minLength(1), z.maxLength(128));

/**
 * C0 and C1 control characters (with DEL), and the Unicode bidirectional controls:
 * embeddings and overrides (U+202A–U+202E), isolates (U+2066–U+2069), the LTR/RTL marks
 * (U+200E, U+200F) and the Arabic letter mark (U+061C). In a trail an ADMIN reads they
 * would break lines, forge columns in an export, or show a username reordered.
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is what it is for.
const UNSAFE_TEXT = /[\u0000-\u001F\u007F-\u009F\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069]/g;

/**
 * Text from a request made safe for the audit trail: each control character becomes
 * U+FFFD, so the reader sees that something was there and the length (and so every
 * bound) stays the same.
 */
export const auditText = (value: string) => value.replace(UNSAFE_TEXT, '\uFFFD');

/** Every string of an event's details through auditText (docs/api.md 9.8), before the schema bounds it. */
export function safeDetails(details: Record<string, unknown>): Record<string, unknown> {
  const safe = (value: unknown): unknown => (typeof value === 'string' ? auditText(value) : Array.isArray(value) ? value.map(safe) : value);
  return Object.fromEntries(Object.entries(details).map(([name, value]) => [name, safe(value)]));
}

/**
 * The details an event may carry: a small allow-list of identifiers and labels, never a
 * password, code, token, secret or hash. A detail not named here cannot be stored (the
 * schema is strict at write and read).
 */
export const auditDetailsSchema = z.strictObject({
  reason: z.optional(z.enum(AUDIT_REASONS)),
  /** The username a sign-in named (unknown usernames have no user id to point to). */
  username: z.optional(z.string().check(z.maxLength(128))),
  method: z.optional(z.enum(SECOND_FACTORS)),
  amr: z.optional(z.array(z.enum(AMR_VALUES))),
  role: z.optional(z.enum(ROLES)),
  shopId: z.optional(boundedId),
  name: z.optional(z.string().check(z.maxLength(100))),
  status: z.optional(z.enum(['active', 'disabled'])),
  clientId: z.optional(boundedId),
  sessionId: z.optional(boundedId),
  grantId: z.optional(boundedId),
  revoked: z.optional(z.number().check(z.int(), z.nonnegative())),
  newTenant: z.optional(z.boolean()),
  /** Recovery codes left after one was used. */
  remaining: z.optional(z.number().check(z.int(), z.nonnegative())),
  /** A passkey's id (docs/api.md 12): the digest of its credential id. */
  passkeyId: z.optional(boundedId),
  /** The passkeys a password reset removed (docs/api.md 8.7). */
  passkeysRemoved: z.optional(z.number().check(z.int(), z.nonnegative())),
  /** The connection of a federated sign-in or of an ADMIN's change to it (docs/api.md 14). */
  connectionId: z.optional(boundedId),
  /** An invitation's id (docs/api.md 13.1): never its token or link. */
  invitationId: z.optional(boundedId),
  /** An import's counts (docs/api.md 13.2): users created, rows failed. */
  imported: z.optional(z.number().check(z.int(), z.nonnegative())),
  failed: z.optional(z.number().check(z.int(), z.nonnegative())),
  /** A domain of the tenant (docs/api.md 14.2). */
  domain: z.optional(z.string().check(z.maxLength(253))),
  /** A webhook of the tenant (docs/api.md 17.2): never its URL or secret. */
  webhookId: z.optional(boundedId),
});
export type AuditDetails = z.output<typeof auditDetailsSchema>;

/**
 * Who did it: a user (an ADMIN, the user themselves, the account a sign-in claimed), an
 * OAuth client, a SCIM token (its id, docs/api.md 13.3), or the service.
 */
export const auditActorSchema = z.strictObject({
  type: z.enum(['user', 'client', 'scim', 'system']),
  /** Null for a sign-in of an unknown username. */
  id: z.nullable(z.string().check(z.maxLength(128))),
});
export type AuditActor = z.output<typeof auditActorSchema>;

/** An event as the trail answers it (docs/api.md 9.8). */
export const auditEventSchema = z.object({
  id: z.string(),
  /** ISO 8601, the service's clock. */
  time: z.string(),
  type: z.enum(AUDIT_EVENT_TYPES),
  actor: auditActorSchema,
  targetUserId: z.nullable(z.string()),
  /** As API Gateway saw the caller (`requestContext.http.sourceIp`). */
  ipAddress: z.nullable(z.string()),
  userAgent: z.nullable(z.string()),
  outcome: z.enum(['success', 'failure']),
  details: auditDetailsSchema,
});
export type AuditEvent = z.output<typeof auditEventSchema>;

/** Events are kept 400 days, then DynamoDB's TTL deletes them. */
export const AUDIT_RETENTION_SECONDS = 400 * 24 * 3600;
