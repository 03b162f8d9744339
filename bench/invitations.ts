/**
 * Invitation acceptance under load (docs/api.md 13.1): POST /auth/invitations/accept with
 * a fresh link per request. Pending invitations are written straight into the table with
 * the hash of tokens made here; each request takes the next token and a username of its
 * own. Its cost is Argon2id (the new password's hash) and one transaction (the invitation
 * used, the user and username created), then the sign-in's session and ES256 token.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { Config } from '../lib/config';
import { hashToken } from '../lib/crypto/token-hash';
import { keys } from '../lib/store/keys';
import type { RequestShape } from './load';
import { batchWrite } from './seed';

export interface InvitationLoad {
  /** The next request: the next unused link, with a username of its own. */
  next: () => RequestShape;
}

/** Seeds `count` pending invitations of the tenant (far-off expiry: the run may be long). */
export async function seedInvitations(
  doc: DynamoDBDocumentClient,
  config: Config,
  tenantId: string,
  count: number,
): Promise<InvitationLoad> {
  const now = Math.floor(Date.now() / 1000);
  const createdAt = new Date().toISOString();
  const tenant = Buffer.from(tenantId, 'utf8').toString('base64url');
  const invitations = Array.from({ length: count }, (_, i) => {
    const id = randomUUID();
    const token = `${tenant}.${id}.${randomBytes(32).toString('base64url')}`;
    const item = {
      ...keys.invitation(tenantId, id),
      ...keys.tenantInvitation(tenantId, createdAt, id),
      id,
      tenantId,
      email: `invitee-${i}-${id.slice(0, 8)}@bench.example`,
      role: 'ANALYST',
      shopId: config.defaultShopId,
      status: 'pending',
      tokenHash: hashToken(token),
      expiresAt: now + 24 * 3600,
      createdAt,
      createdBy: 'bench',
    };
    return { token, item };
  });
  await batchWrite(
    doc,
    config.tableName,
    invitations.map((invitation) => invitation.item),
  );
  let taken = 0;
  return {
    next: () => {
      const invitation = invitations[taken % invitations.length] as { token: string };
      taken++;
      return {
        body: JSON.stringify({
          token: invitation.token,
          username: `joiner-${taken}-${randomBytes(3).toString('hex')}`,
          password: 'a bench passphrase',
        }),
      };
    },
  };
}
