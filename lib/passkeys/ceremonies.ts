import { createHash, createPublicKey, type KeyObject, verify } from 'node:crypto';
import { decodeCBORToNativeValueNoLeftoverBytes } from '@oslojs/cbor';
import {
  type AuthenticatorData,
  ClientDataType,
  COSEKeyType,
  type COSEPublicKey,
  coseAlgorithmEdDSA,
  coseAlgorithmES256,
  coseAlgorithmRS256,
  coseEllipticCurveEd25519,
  coseEllipticCurveP256,
  parseAuthenticatorData,
  parseClientDataJSON,
} from '@oslojs/webauthn';
import { sourceOf } from '../abuse/source-address';
import type { AuditDetails } from '../audit/events';
import { bySelf, recordEvent } from '../audit/record';
import { epochSeconds } from '../clock';
import type { Deps } from '../deps';
import { ConflictError, NotFoundError, TooManyRequestsError, UnauthorizedError, ValidationError } from '../errors';
import { selfEvent } from '../events/self';
import { notifyUser } from '../notifications/notify';
import { liveSession } from '../sessions/live-session';
import type { Amr } from '../sessions/session';
import { NOBODY, SOURCE_WINDOW_SECONDS, signInEvent } from '../sessions/sign-in';
import type { Identity } from '../tokens/access-token';
import type { User } from '../users/user';
import * as z from '../zod';
import { passkeysOf } from './listing';
import { type CredentialDescriptor, issueChallenge, type PublicKeyCredentialRequestOptionsJSON, signInOptions } from './options';
import { CHALLENGE_TTL_SECONDS, MAX_PASSKEYS_PER_USER, type Passkey, type PasskeyView, passkeyView } from './passkey';

/**
 * The WebAuthn ceremonies (docs/api.md 12, WebAuthn Level 3 7.1 and 7.2) on
 * `@oslojs/webauthn`, which parses the authenticator's CBOR; signatures are checked
 * with node:crypto. Only the passkey functions import this module (docs/decisions/002-oslojs-webauthn.md).
 */

type CeremonyDeps = Pick<Deps, 'config' | 'clock' | 'random' | 'log' | 'store' | 'source'>;
/** What changes the user's passkeys needs besides: the delivery port of the notifications (docs/api.md 8.9). */
type PasskeyDeps = CeremonyDeps & Pick<Deps, 'mfaDelivery'>;

/** The account a registration is for: the signed-in user. */
export interface PasskeyAccount {
  tenantId: string;
  userId: string;
  username: string;
  /** The session the ceremony runs in. */
  sessionId: string;
}

/** WebAuthn's `PublicKeyCredentialCreationOptionsJSON` (Level 3 5.4), as this service fills it. */
export interface PublicKeyCredentialCreationOptionsJSON {
  rp: { id: string; name: string };
  user: { id: string; name: string; displayName: string };
  challenge: string;
  pubKeyCredParams: Array<{ type: 'public-key'; alg: number }>;
  timeout: number;
  excludeCredentials: CredentialDescriptor[];
  authenticatorSelection: { residentKey: 'required'; requireResidentKey: true; userVerification: 'required' };
  attestation: 'none';
  hints: string[];
}

/** What a passkey sign-in proves: the user, the credential, and the session's `amr`. */
export interface PasskeySignIn {
  user: User;
  credentialId: string;
  /** The passkey's id (docs/api.md 12.3). */
  passkeyId: string;
  amr: Amr[];
}

/** Preferred first: EdDSA, ES256, RS256 (the algorithms signatures are checked for below). */
const ALGORITHMS = [coseAlgorithmEdDSA, coseAlgorithmES256, coseAlgorithmRS256];

const base64url = z.string().check(z.regex(/^[A-Za-z0-9_-]+$/));
/** Credential ids are at most 1023 bytes (Level 3 5.1). */
const credentialIdText = base64url.check(z.maxLength(1400));
const registrationResponse = z.object({
  id: credentialIdText,
  rawId: credentialIdText,
  type: z.literal('public-key'),
  response: z.object({
    clientDataJSON: base64url.check(z.maxLength(8192)),
    attestationObject: base64url.check(z.maxLength(65536)),
    transports: z.optional(z.array(z.string().check(z.maxLength(32))).check(z.maxLength(10))),
  }),
});
const authenticationResponse = z.object({
  id: credentialIdText,
  rawId: credentialIdText,
  type: z.literal('public-key'),
  response: z.object({
    clientDataJSON: base64url.check(z.maxLength(8192)),
    authenticatorData: base64url.check(z.maxLength(8192)),
    signature: base64url.check(z.maxLength(2048)),
    userHandle: z.nullish(base64url.check(z.maxLength(128))),
  }),
});

const bytes = (text: string) => new Uint8Array(Buffer.from(text, 'base64url'));
const text = (data: Uint8Array) => Buffer.from(data).toString('base64url');
const sha256 = (data: Uint8Array | string) => createHash('sha256').update(data).digest();

/** A passkey's id: the base64url SHA-256 of its credential id (one per credential, fixed length). */
export const passkeyIdOf = (credentialId: Uint8Array) => text(sha256(credentialId));

/** The WebAuthn user handle of a user: their id's bytes (never the username, Level 3 14.6.1). */
const userHandleOf = (userId: string) => Buffer.from(userId, 'utf8').toString('base64url');

/** Flags byte of authenticator data (Level 3 6.1): backup eligible. */
const BACKUP_ELIGIBLE = 0x08;

/** A passkey as the options of a ceremony name it (Level 3 5.8.3). */
export const descriptor = (passkey: Passkey): CredentialDescriptor => ({
  type: 'public-key',
  id: passkey.credentialId,
  ...(passkey.transports.length > 0 ? { transports: passkey.transports } : {}),
});

/**
 * docs/api.md 12.1: the creation options of a new passkey for the signed-in user, with a
 * challenge bound to the registration, the user and the tenant. Passkeys are
 * discoverable credentials with user verification; no attestation is asked for.
 */
export async function passkeyRegistrationOptions(
  deps: CeremonyDeps,
  account: PasskeyAccount,
): Promise<PublicKeyCredentialCreationOptionsJSON> {
  const [challenge, registered] = await Promise.all([
    issueChallenge(deps, account.tenantId, 'registration', account.userId),
    deps.store.passkeys.listByUser(account.tenantId, account.userId),
  ]);
  return creationOptions(deps, account, challenge, registered.map(descriptor));
}

/** The creation options of a registration's challenge for the account (Level 3 5.4). */
function creationOptions(
  deps: CeremonyDeps,
  account: { userId: string; username: string },
  challenge: string,
  excludeCredentials: CredentialDescriptor[],
): PublicKeyCredentialCreationOptionsJSON {
  const { rpId, rpName } = deps.config.webauthn;
  return {
    rp: { id: rpId, name: rpName },
    user: { id: userHandleOf(account.userId), name: account.username, displayName: account.username },
    challenge,
    pubKeyCredParams: ALGORITHMS.map((alg) => ({ type: 'public-key', alg })),
    timeout: CHALLENGE_TTL_SECONDS * 1000,
    excludeCredentials,
    authenticatorSelection: { residentKey: 'required', requireResidentKey: true, userVerification: 'required' },
    attestation: 'none',
    hints: [],
  };
}

/** The checks both ceremonies make of the client data (Level 3 7.1 steps 7-11, 7.2 steps 10-14); undefined if one fails. */
function checkedClientData(deps: CeremonyDeps, encoded: Uint8Array, type: ClientDataType) {
  let clientData: ReturnType<typeof parseClientDataJSON>;
  try {
    clientData = parseClientDataJSON(encoded);
  } catch {
    return undefined;
  }
  if (clientData.type !== type) return undefined;
  if (!deps.config.webauthn.origins.includes(clientData.origin)) return undefined;
  // A ceremony run in a frame of another site (Level 3 13.4.3): refused.
  if (clientData.crossOrigin === true) return undefined;
  return { challenge: text(clientData.challenge) };
}

/** The checks of authenticator data both ceremonies make (Level 3 7.1 steps 13-15): RP ID, presence, verification. */
function checksFlags(deps: CeremonyDeps, data: AuthenticatorData): boolean {
  return data.verifyRelyingPartyIdHash(deps.config.webauthn.rpId) && data.userPresent && data.userVerified;
}

/** The credential public key as SubjectPublicKeyInfo, for an algorithm this service checks; undefined otherwise. */
function publicKeyOf(cose: COSEPublicKey): { key: KeyObject; algorithm: number } | undefined {
  const pad = (value: bigint, length: number) => Buffer.from(value.toString(16).padStart(length * 2, '0'), 'hex').toString('base64url');
  try {
    const algorithm = cose.algorithm();
    if (algorithm === coseAlgorithmES256 && cose.type() === COSEKeyType.EC2) {
      const { curve, x, y } = cose.ec2();
      if (curve !== coseEllipticCurveP256) return undefined;
      return { key: createPublicKey({ key: { kty: 'EC', crv: 'P-256', x: pad(x, 32), y: pad(y, 32) }, format: 'jwk' }), algorithm };
    }
    if (algorithm === coseAlgorithmEdDSA && cose.type() === COSEKeyType.OKP) {
      const { curve, x } = cose.okp();
      if (curve !== coseEllipticCurveEd25519) return undefined;
      return { key: createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: text(x) }, format: 'jwk' }), algorithm };
    }
    if (algorithm === coseAlgorithmRS256 && cose.type() === COSEKeyType.RSA) {
      const { n, e } = cose.rsa();
      const hex = (value: bigint) => {
        const digits = value.toString(16);
        return Buffer.from(digits.length % 2 ? `0${digits}` : digits, 'hex').toString('base64url');
      };
      return { key: createPublicKey({ key: { kty: 'RSA', n: hex(n), e: hex(e) }, format: 'jwk' }), algorithm };
    }
  } catch {
    return undefined;
  }
  return undefined;
}

/** Checks an assertion's signature over authenticatorData ‖ SHA-256(clientDataJSON) (Level 3 7.2 step 21). */
function signatureIsValid(passkey: Passkey, authenticatorData: Uint8Array, clientDataJSON: Uint8Array, signature: Uint8Array): boolean {
  const key = createPublicKey({ key: Buffer.from(passkey.publicKey, 'base64url'), format: 'der', type: 'spki' });
  const signed = Buffer.concat([authenticatorData, sha256(clientDataJSON)]);
  try {
    if (passkey.algorithm === coseAlgorithmEdDSA) return verify(null, signed, key, signature);
    if (passkey.algorithm === coseAlgorithmES256) return verify('sha256', signed, { key, dsaEncoding: 'der' }, signature);
    if (passkey.algorithm === coseAlgorithmRS256) return verify('sha256', signed, key, signature);
  } catch {
    return false;
  }
  return false;
}

/** docs/api.md 12.2: a passkey's default name, when the registration gives none. */
const defaultName = (now: number) => `Passkey ${new Date(now * 1000).toISOString().slice(0, 10)}`;

/**
 * A registration response checked against a registration challenge of the tenant (Level 3
 * 7.1): the challenge used (once), our origin and RP ID, user verification, a key of an
 * algorithm we check. The passkey it makes (without its name), for the user the challenge
 * was issued to; undefined for any failure.
 */
async function checkedRegistration(
  deps: CeremonyDeps,
  tenantId: string,
  credential: unknown,
  now: number,
): Promise<{ userId: string | undefined; passkey: Omit<Passkey, 'userId' | 'name'> } | undefined> {
  const parsed = registrationResponse.safeParse(credential);
  if (!parsed.success) return undefined;
  const { response } = parsed.data;
  const clientDataJSON = bytes(response.clientDataJSON);
  const clientData = checkedClientData(deps, clientDataJSON, ClientDataType.Create);
  if (!clientData) return undefined;
  const challenge = await deps.store.passkeys.consumeChallenge(tenantId, clientData.challenge, 'registration', now);
  if (!challenge) return undefined;
  const authenticatorDataBytes = authenticatorDataOf(bytes(response.attestationObject));
  const authenticatorData = authenticatorDataBytes && parsedAuthenticatorData(authenticatorDataBytes);
  if (!authenticatorDataBytes || !authenticatorData) return undefined;
  const created = authenticatorData.credential;
  if (!checksFlags(deps, authenticatorData) || !created || text(created.id) !== parsed.data.rawId) return undefined;
  const publicKey = publicKeyOf(created.publicKey);
  if (!publicKey) return undefined;
  return {
    userId: challenge.userId,
    passkey: {
      id: passkeyIdOf(created.id),
      tenantId,
      credentialId: text(created.id),
      publicKey: publicKey.key.export({ type: 'spki', format: 'der' }).toString('base64url'),
      algorithm: publicKey.algorithm,
      counter: authenticatorData.signatureCounter,
      backupEligible: ((authenticatorDataBytes[32] ?? 0) & BACKUP_ELIGIBLE) !== 0,
      transports: response.transports ?? [],
      createdAt: now,
    },
  };
}

/**
 * docs/api.md 13.1: the creation options of the first passkey of an account that does not
 * exist yet (an invitation's), its challenge bound to the id the account will have.
 */
export async function newAccountRegistrationOptions(
  deps: CeremonyDeps,
  account: { tenantId: string; userId: string; username: string },
): Promise<PublicKeyCredentialCreationOptionsJSON> {
  const challenge = await issueChallenge(deps, account.tenantId, 'registration', account.userId);
  return creationOptions(deps, account, challenge, []);
}

/**
 * docs/api.md 13.1: the first passkey of a new account, checked (the challenge used) but not
 * stored: the account it is for (the challenge's) is made first. The sign-in's `amr` as a
 * passkey sign-in's. 400 `Invalid passkey registration` for any failure.
 */
export async function newAccountPasskey(
  deps: CeremonyDeps,
  tenantId: string,
  credential: unknown,
  name: string,
): Promise<{ passkey: Passkey; amr: Amr[] }> {
  const checked = await checkedRegistration(deps, tenantId, credential, epochSeconds(deps.clock));
  if (!checked?.userId) throw invalidRegistration();
  const passkey: Passkey = { ...checked.passkey, userId: checked.userId, name };
  return { passkey, amr: [passkey.backupEligible ? 'swk' : 'hwk', 'user'] };
}

/**
 * docs/api.md 12.2: checks a registration response (Level 3 7.1) against its challenge
 * (used once, for this user, in this tenant, within 5 minutes), the configured origins
 * and RP ID, and user verification; then stores the passkey, once per credential id in
 * the tenant. Refusals: 400 `Invalid passkey registration`, 409 `Passkey already registered`,
 * 409 `Too many passkeys`. The attestation statement is not checked (`attestation: 'none'`).
 */
export async function registerPasskey(
  deps: PasskeyDeps,
  account: PasskeyAccount,
  credential: unknown,
  name?: string,
): Promise<PasskeyView> {
  const now = epochSeconds(deps.clock);
  const refuse = async (reason: NonNullable<AuditDetails['reason']>, error: Error = invalidRegistration()) => {
    await recordEvent(deps, {
      tenantId: account.tenantId,
      type: 'passkey_registration_failed',
      actor: { type: 'user', id: account.userId },
      targetUserId: account.userId,
      outcome: 'failure',
      details: { reason },
    });
    return error;
  };
  const checked = await checkedRegistration(deps, account.tenantId, credential, now);
  if (!checked || checked.userId !== account.userId) throw await refuse('invalid_passkey');

  const owned = await deps.store.passkeys.listByUser(account.tenantId, account.userId);
  if (owned.length >= MAX_PASSKEYS_PER_USER) {
    throw await refuse('passkey_limit', new ConflictError('Too many passkeys', { code: 'TOO_MANY_PASSKEYS' }));
  }
  const passkey: Passkey = { ...checked.passkey, userId: account.userId, name: name ?? defaultName(now) };

  const registered = deps.store.emitting([
    selfEvent(deps, account, 'identity.passkey.registered', { passkeyId: passkey.id, name: passkey.name }),
  ]);
  if (!(await registered.passkeys.register(passkey))) {
    throw await refuse('passkey_taken', new ConflictError('Passkey already registered', { code: 'PASSKEY_ALREADY_REGISTERED' }));
  }
  // The session may have ended while the ceremony ran (an ADMIN's MFA reset revokes every
  // session, then erases the passkeys it lists): a passkey stored after that would outlive
  // the reset, so it goes again and the registration fails (docs/api.md 9.5, 12.2). A check
  // that could not run proves nothing either: the passkey goes again and the error stands.
  // Its event was published with it, so its removal is published too.
  const removeAgain = () =>
    deps.store
      .emitting([selfEvent(deps, account, 'identity.passkey.removed', { passkeyId: passkey.id, reason: 'session_ended' })])
      .passkeys.remove(account.tenantId, account.userId, passkey.id, now);
  const live = await liveSession(deps, account, now).catch(async (error: unknown) => {
    await removeAgain();
    throw error;
  });
  if (!live) {
    await removeAgain();
    throw await refuse('session_ended', new UnauthorizedError());
  }
  deps.log.info('passkey_registered', { tenantId: account.tenantId, userId: account.userId, passkeyId: passkey.id });
  await recordEvent(deps, {
    tenantId: account.tenantId,
    type: 'passkey_registered',
    actor: { type: 'user', id: account.userId },
    targetUserId: account.userId,
    outcome: 'success',
    details: { passkeyId: passkey.id, name: passkey.name },
  });
  const view = passkeyView(passkey);
  // docs/api.md 8.9: a passkey signs in without the password, so its owner hears of every new one.
  await notifyUser(deps, account, { kind: 'passkey-added', passkey: view });
  return view;
}

const invalidRegistration = () => new ValidationError('Invalid passkey registration', { code: 'INVALID_PASSKEY_REGISTRATION' });
const invalidPasskey = () => new UnauthorizedError('Invalid passkey', {}, { code: 'INVALID_PASSKEY' });

/** The authenticator data of an attestation object (Level 3 6.5); its statement is not checked (`attestation: 'none'`). */
function authenticatorDataOf(attestationObject: Uint8Array): Uint8Array | undefined {
  try {
    const decoded: unknown = decodeCBORToNativeValueNoLeftoverBytes(attestationObject, 4);
    if (typeof decoded !== 'object' || decoded === null || !('authData' in decoded) || !('fmt' in decoded)) return undefined;
    return decoded.authData instanceof Uint8Array && typeof decoded.fmt === 'string' ? decoded.authData : undefined;
  } catch {
    return undefined;
  }
}

function parsedAuthenticatorData(encoded: Uint8Array): AuthenticatorData | undefined {
  try {
    return parseAuthenticatorData(encoded);
  } catch {
    return undefined;
  }
}

/**
 * docs/api.md 12.5: the request options of a sign-in. With a username, the challenge is
 * bound to its user (a passkey of anyone else is refused), or to nobody for an unknown
 * username; the answer is the same either way: no credentials listed, the same reads.
 */
export async function passkeyAuthenticationOptions(
  deps: CeremonyDeps,
  request: { tenantId: string; username?: string | undefined },
): Promise<PublicKeyCredentialRequestOptionsJSON> {
  if (request.username === undefined) return signInOptions(deps, request.tenantId);
  const user = await deps.store.users.findByUsername(request.tenantId, request.username);
  return signInOptions(deps, request.tenantId, user?.id ?? NOBODY);
}

/**
 * docs/api.md 12.6: checks an assertion (Level 3 7.2): its challenge (used once, for
 * sign-in, in this tenant, within 5 minutes, for the user it named), origin, RP ID,
 * user verification, signature, and signature counter; then the user's status and the
 * login's limits (the per-source limit of failures, the account's lockout). Any failure
 * is 401 `Invalid passkey` and an audit event; a counter that went back (a cloned
 * authenticator) is refused and audited as such. The caller starts the session.
 * `reauthenticating`: the session of that identity proves its user again (docs/api.md
 * 15.2): a passkey of anyone else is refused like a bad one, before its use is recorded,
 * and refusals are audited as `reauthentication_failed`.
 */
export async function verifyPasskeySignIn(
  deps: CeremonyDeps,
  request: { tenantId: string; credential: unknown; sourceIp?: string | undefined; reauthenticating?: Identity | undefined },
): Promise<PasskeySignIn> {
  const { tenantId, reauthenticating } = request;
  const now = epochSeconds(deps.clock);
  const address = sourceOf(request.sourceIp);
  const sourcePolicy = { max: deps.config.loginFailuresPerSource, windowSeconds: SOURCE_WINDOW_SECONDS };
  const source = address === undefined ? undefined : ({ kind: 'source', address } as const);
  const refuse = async (user: User | undefined, reason: NonNullable<AuditDetails['reason']>, passkeyId?: string) => {
    deps.log.info('passkey_sign_in_failed', { tenantId, userId: user?.id, reason });
    await Promise.all([
      source && deps.store.attempts.reserve(source, now, sourcePolicy),
      reauthenticating
        ? recordEvent(deps, {
            ...bySelf(reauthenticating),
            type: 'reauthentication_failed',
            outcome: 'failure',
            details: { reason, ...(passkeyId ? { passkeyId } : {}) },
          })
        : signInEvent(deps, tenantId, user?.username, user, 'login_failed', { reason, ...(passkeyId ? { passkeyId } : {}) }),
    ]);
    return invalidPasskey();
  };

  const parsed = authenticationResponse.safeParse(request.credential);
  if (source) {
    const verdict = await deps.store.attempts.peek(source, now, sourcePolicy);
    if (!verdict.allowed) throw new TooManyRequestsError(verdict.retryAfterSeconds, 'Too many requests', { code: 'RATE_LIMITED' });
  }
  if (!parsed.success) throw await refuse(undefined, 'invalid_passkey');
  const { response } = parsed.data;
  const clientDataJSON = bytes(response.clientDataJSON);
  const clientData = checkedClientData(deps, clientDataJSON, ClientDataType.Get);
  if (!clientData) throw await refuse(undefined, 'invalid_passkey');
  const passkeyId = passkeyIdOf(bytes(parsed.data.rawId));
  // The challenge is spent whatever follows: a refused assertion cannot be tried again.
  const [challenge, passkey] = await Promise.all([
    deps.store.passkeys.consumeChallenge(tenantId, clientData.challenge, 'authentication', now),
    deps.store.passkeys.find(tenantId, passkeyId),
  ]);
  const user = passkey && (await deps.store.users.findById(tenantId, passkey.userId));
  if (!challenge || !passkey || !user) throw await refuse(user, 'invalid_passkey', passkey?.id);
  if (challenge.userId !== undefined && challenge.userId !== passkey.userId) throw await refuse(user, 'invalid_passkey', passkey.id);
  // Another user's passkey (even of this tenant) does not prove this session's user.
  if (reauthenticating && reauthenticating.userId !== passkey.userId) throw await refuse(user, 'invalid_passkey', passkey.id);
  if (response.userHandle && response.userHandle !== userHandleOf(passkey.userId)) throw await refuse(user, 'invalid_passkey', passkey.id);

  const authenticatorDataBytes = bytes(response.authenticatorData);
  const authenticatorData = parsedAuthenticatorData(authenticatorDataBytes);
  if (!authenticatorData) throw await refuse(user, 'invalid_passkey', passkey.id);
  if (
    !checksFlags(deps, authenticatorData) ||
    !signatureIsValid(passkey, authenticatorDataBytes, clientDataJSON, bytes(response.signature))
  ) {
    throw await refuse(user, 'invalid_passkey', passkey.id);
  }
  // Level 3 7.2 step 22: an authenticator that keeps a counter moves it on at every use; one
  // that did not was cloned (or its answer replayed), and the credential is not trusted.
  const counter = authenticatorData.signatureCounter;
  if ((counter !== 0 || passkey.counter !== 0) && counter <= passkey.counter) {
    deps.log.warn('passkey_counter_went_back', { tenantId, userId: user.id, passkeyId: passkey.id });
    throw await refuse(user, 'passkey_cloned', passkey.id);
  }
  if (user.status !== 'active') throw await refuse(user, 'disabled', passkey.id);
  // docs/api.md 12.6, 10: password guesses from unknown sources do not lock a passkey
  // out (a verified assertion is the owner's possession and verification, stronger than
  // the known-device cookie that the lockout lets through), or anyone who knows a
  // username could keep its passkeys locked.
  if (!(await deps.store.passkeys.recordUse(passkey, counter, now))) throw await refuse(user, 'invalid_passkey', passkey.id);
  const amr: Amr[] = [passkey.backupEligible ? 'swk' : 'hwk', 'user'];
  return { user, credentialId: passkey.credentialId, passkeyId: passkey.id, amr };
}

/** docs/api.md 12.3: the user's passkeys, newest first (lib/passkeys/listing.ts). */
export const listPasskeys = passkeysOf;

/**
 * docs/api.md 12.4: removes one of the user's passkeys, and tells the user (8.9); 404
 * `Passkey not found` if the user has no such passkey.
 */
export async function removePasskey(deps: PasskeyDeps, account: PasskeyAccount, id: string): Promise<void> {
  const now = epochSeconds(deps.clock);
  const removing = deps.store.emitting([selfEvent(deps, account, 'identity.passkey.removed', { passkeyId: id })]);
  const removed = await removing.passkeys.remove(account.tenantId, account.userId, id, now);
  if (!removed) throw new NotFoundError('Passkey not found', { code: 'PASSKEY_NOT_FOUND' });
  deps.log.info('passkey_removed', { tenantId: account.tenantId, userId: account.userId, passkeyId: id });
  await recordEvent(deps, {
    tenantId: account.tenantId,
    type: 'passkey_removed',
    actor: { type: 'user', id: account.userId },
    targetUserId: account.userId,
    outcome: 'success',
    details: { passkeyId: id },
  });
  await notifyUser(deps, account, { kind: 'passkey-removed', passkey: passkeyView(removed) });
}
