import { createHash, generateKeyPairSync, type KeyObject, randomBytes, sign } from 'node:crypto';

/**
 * A software WebAuthn authenticator with its client (the browser's part): ES256
 * credentials kept in memory, `none` attestation, every flag and the counter under the
 * test's control. It answers creation and request options as `navigator.credentials`
 * would, in their JSON form (`RegistrationResponseJSON`, `AuthenticationResponseJSON`).
 */

type CborValue = number | string | Uint8Array | CborValue[] | Map<CborValue, CborValue> | { [key: string]: CborValue };

/** Just enough CBOR (RFC 8949) for attestation objects and COSE keys. */
export function cbor(value: CborValue): Buffer {
  const head = (major: number, length: number): Buffer => {
    if (length < 24) return Buffer.from([(major << 5) | length]);
    if (length < 0x100) return Buffer.from([(major << 5) | 24, length]);
    if (length < 0x10000) return Buffer.from([(major << 5) | 25, length >> 8, length & 0xff]);
    const four = Buffer.alloc(5);
    four[0] = (major << 5) | 26;
    four.writeUInt32BE(length, 1);
    return four;
  };
  if (typeof value === 'number') return value >= 0 ? head(0, value) : head(1, -1 - value);
  if (typeof value === 'string') return Buffer.concat([head(3, Buffer.byteLength(value)), Buffer.from(value)]);
  if (value instanceof Uint8Array) return Buffer.concat([head(2, value.length), value]);
  if (Array.isArray(value)) return Buffer.concat([head(4, value.length), ...value.map(cbor)]);
  const entries = value instanceof Map ? [...value.entries()] : Object.entries(value);
  return Buffer.concat([head(5, entries.length), ...entries.flatMap(([key, item]) => [cbor(key), cbor(item)])]);
}

const sha256 = (data: Uint8Array | string) => createHash('sha256').update(data).digest();
const b64url = (data: Uint8Array) => Buffer.from(data).toString('base64url');

export interface StoredCredential {
  id: Buffer;
  privateKey: KeyObject;
  publicKey: KeyObject;
  rpId: string;
  userHandle: string;
  counter: number;
}

export interface AuthenticatorOptions {
  /** The page the ceremony runs on (clientDataJSON `origin`). */
  origin?: string;
  /** Sets the UV flag (user verified): true unless said otherwise. */
  userVerified?: boolean;
  /** Backup eligible (a synced passkey): false unless said otherwise. */
  backupEligible?: boolean;
  /** How much the counter moves per use: 1 unless said otherwise (0: the authenticator keeps none). */
  counterStep?: number;
}

/** What a single call may override (a hostile or broken client). */
export interface CeremonyOverrides {
  origin?: string;
  rpId?: string;
  userVerified?: boolean;
  type?: string;
  challenge?: string;
  crossOrigin?: boolean;
}

export interface CreationOptions {
  rp: { id: string };
  user: { id: string };
  challenge: string;
}

export interface RequestOptions {
  rpId: string;
  challenge: string;
  allowCredentials: Array<{ id: string }>;
}

export function softwareAuthenticator(options: AuthenticatorOptions = {}) {
  const origin = options.origin ?? 'http://localhost:3000';
  const credentials: StoredCredential[] = [];
  const step = options.counterStep ?? 1;

  const clientData = (type: string, challenge: string, overrides: CeremonyOverrides) =>
    Buffer.from(
      JSON.stringify({
        type: overrides.type ?? type,
        challenge: overrides.challenge ?? challenge,
        origin: overrides.origin ?? origin,
        crossOrigin: overrides.crossOrigin ?? false,
      }),
    );
  const flags = (overrides: CeremonyOverrides, attested: boolean) =>
    0x01 |
    ((overrides.userVerified ?? options.userVerified ?? true) ? 0x04 : 0) |
    (options.backupEligible ? 0x18 : 0) |
    (attested ? 0x40 : 0);
  const counterBytes = (counter: number) => {
    const bytes = Buffer.alloc(4);
    bytes.writeUInt32BE(counter);
    return bytes;
  };

  /** navigator.credentials.create(): a new ES256 credential (or, for a hostile client, `reuse`'s id and key again). */
  function create(creation: CreationOptions, overrides: CeremonyOverrides = {}, reuse?: StoredCredential) {
    const { privateKey, publicKey } = reuse ?? generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const rpId = overrides.rpId ?? creation.rp.id;
    const credential: StoredCredential = {
      id: reuse?.id ?? randomBytes(32),
      privateKey,
      publicKey,
      rpId,
      userHandle: creation.user.id,
      counter: 0,
    };
    const jwk = publicKey.export({ format: 'jwk' });
    const cose = new Map<CborValue, CborValue>([
      [1, 2],
      [3, -7],
      [-1, 1],
      [-2, Buffer.from(String(jwk.x), 'base64url')],
      [-3, Buffer.from(String(jwk.y), 'base64url')],
    ]);
    const idLength = Buffer.from([credential.id.length >> 8, credential.id.length & 0xff]);
    const authData = Buffer.concat([
      sha256(rpId),
      Buffer.from([flags(overrides, true)]),
      counterBytes(credential.counter),
      Buffer.alloc(16),
      idLength,
      credential.id,
      cbor(cose),
    ]);
    credentials.push(credential);
    return {
      credential,
      response: {
        id: b64url(credential.id),
        rawId: b64url(credential.id),
        type: 'public-key',
        authenticatorAttachment: 'platform',
        clientExtensionResults: {},
        response: {
          clientDataJSON: b64url(clientData('webauthn.create', creation.challenge, overrides)),
          attestationObject: b64url(cbor({ fmt: 'none', attStmt: {}, authData })),
          transports: ['internal'],
        },
      },
    };
  }

  /** navigator.credentials.get(): an assertion of `credential` (by default the allowed one, else the newest for the RP). */
  function get(request: RequestOptions, overrides: CeremonyOverrides = {}, credential?: StoredCredential) {
    const allowed = request.allowCredentials.map((descriptor) => descriptor.id);
    const chosen =
      credential ??
      [...credentials]
        .reverse()
        .find((candidate) => candidate.rpId === request.rpId && (allowed.length === 0 || allowed.includes(b64url(candidate.id))));
    if (!chosen) throw new Error('No credential for this request');
    chosen.counter += step;
    const authData = Buffer.concat([
      sha256(overrides.rpId ?? request.rpId),
      Buffer.from([flags(overrides, false)]),
      counterBytes(chosen.counter),
    ]);
    const clientDataJSON = clientData('webauthn.get', request.challenge, overrides);
    const signature = sign('sha256', Buffer.concat([authData, sha256(clientDataJSON)]), { key: chosen.privateKey, dsaEncoding: 'der' });
    return {
      id: b64url(chosen.id),
      rawId: b64url(chosen.id),
      type: 'public-key',
      authenticatorAttachment: 'platform',
      clientExtensionResults: {},
      response: {
        clientDataJSON: b64url(clientDataJSON),
        authenticatorData: b64url(authData),
        signature: b64url(signature),
        userHandle: chosen.userHandle,
      },
    };
  }

  return { create, get, credentials };
}
