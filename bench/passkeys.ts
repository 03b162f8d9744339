/**
 * Passkey sign-in under load (docs/api.md 12.6): POST /auth/passkeys/authentication with a
 * fresh, valid assertion per request. Passkeys of seeded users and single-use
 * challenges are written straight into the table; each request takes the next
 * challenge and the next passkey (round robin, so one passkey's counter is never raced)
 * and is signed here, in the load generator, by a software authenticator.
 */
import { randomBytes } from 'node:crypto';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { Config } from '../lib/config';
import { passkeyIdOf } from '../lib/passkeys/ceremonies';
import type { Passkey } from '../lib/passkeys/passkey';
import { keys } from '../lib/store/keys';
import { TTL_ATTRIBUTE } from '../lib/store/table';
import type { Identity } from '../lib/tokens/access-token';
import { type StoredCredential, softwareAuthenticator } from '../test/helpers/authenticator';
import type { RequestShape } from './load';
import { batchWrite } from './seed';

export interface PasskeyLoad {
  /** The next request: a new assertion for the next challenge. */
  next: () => RequestShape;
}

/** Seeds a passkey for each of `owners` and `challenges` challenges of the tenant. */
export async function seedPasskeySignIns(
  doc: DynamoDBDocumentClient,
  config: Config,
  tenantId: string,
  owners: Identity[],
  challenges: number,
): Promise<PasskeyLoad> {
  const authenticator = softwareAuthenticator({ origin: config.webauthn.origins[0] });
  const rpId = config.webauthn.rpId;
  const now = Math.floor(Date.now() / 1000);
  const credentials: StoredCredential[] = owners.map((owner) => {
    const userHandle = Buffer.from(owner.userId).toString('base64url');
    return authenticator.create({ rp: { id: rpId }, user: { id: userHandle }, challenge: 'seed' }).credential;
  });
  const passkeyItems = credentials.map((credential, i) => {
    const owner = owners[i] as Identity;
    const passkey: Passkey = {
      id: passkeyIdOf(credential.id),
      tenantId,
      userId: owner.userId,
      credentialId: credential.id.toString('base64url'),
      publicKey: credential.publicKey.export({ type: 'spki', format: 'der' }).toString('base64url'),
      algorithm: -7,
      counter: 0,
      backupEligible: false,
      transports: ['internal'],
      name: 'bench',
      createdAt: now,
    };
    return {
      ...keys.passkey(tenantId, passkey.id),
      ...keys.ownedBy(tenantId, owner.userId, 'PASSKEY', now, passkey.id),
      ...passkey,
    };
  });
  // Far-off expiry: the run may outlast 5 minutes; the route's rules are tested elsewhere.
  const expiresAt = now + 24 * 3600;
  const pool = Array.from({ length: challenges }, () => randomBytes(32).toString('base64url'));
  const challengeItems = pool.map((challenge) => ({
    ...keys.webauthnChallenge(tenantId, challenge),
    challenge,
    tenantId,
    ceremony: 'authentication',
    expiresAt,
    [TTL_ATTRIBUTE]: expiresAt,
  }));
  await batchWrite(doc, config.tableName, [...passkeyItems, ...challengeItems]);
  let taken = 0;
  return {
    next: () => {
      const challenge = pool[taken % pool.length] as string;
      const credential = credentials[taken % credentials.length] as StoredCredential;
      taken++;
      const assertion = authenticator.get({ rpId, challenge, allowCredentials: [] }, {}, credential);
      return { body: JSON.stringify({ tenantId, credential: assertion }) };
    },
  };
}
