/**
 * The SCIM list with a filter (docs/api.md 13.3) at 10,000 users: a tenant of its own,
 * seeded straight into the table in batches (profiles with their tenant index, username,
 * externalId and email index entries, as lib/store writes them), and SCIM tokens enough
 * that the per-token budget (600 a minute) never refuses a measured request.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { Config } from '../lib/config';
import { hashToken } from '../lib/crypto/token-hash';
import { formatScimToken } from '../lib/scim/tokens';
import { keys } from '../lib/store/keys';
import type { User } from '../lib/users/user';
import { batchWrite, tenantItem, userItems } from './seed';

export const SCIM_TENANT = 'bench-scim';
const TOKENS = 50;

export async function seedScimTenant(doc: DynamoDBDocumentClient, config: Config, count: number) {
  const createdAt = new Date().toISOString();
  const items: Array<Record<string, unknown>> = [tenantItem(SCIM_TENANT)];
  const people: Array<{ userName: string; externalId: string; email: string }> = [];
  for (let i = 0; i < count; i++) {
    const userName = `staff-${i}@bench.example`;
    const externalId = `00u${i.toString(36).padStart(8, '0')}`;
    const email = `staff-${i}@bench.example`;
    const user: User = {
      id: randomUUID(),
      tenantId: SCIM_TENANT,
      shopId: config.defaultShopId,
      username: userName,
      role: 'ANALYST',
      status: 'active',
      createdAt,
      externalId,
      email,
      emailVerified: false,
      emails: [{ value: email, type: 'work', primary: true }],
      name: { givenName: 'Staff', familyName: String(i) },
      displayName: `Staff ${i}`,
    };
    const [profile, username] = userItems(user);
    items.push({ ...profile, ...keys.userEmail(SCIM_TENANT, email) }, username ?? {}, {
      ...keys.externalId(SCIM_TENANT, externalId),
      userId: user.id,
    });
    people.push({ userName, externalId, email });
  }
  const tokens: string[] = [];
  for (let i = 0; i < TOKENS; i++) {
    const id = randomUUID();
    const token = formatScimToken(SCIM_TENANT, id, randomBytes(32).toString('base64url'));
    tokens.push(token);
    items.push({
      ...keys.scimToken(SCIM_TENANT, id),
      tenantId: SCIM_TENANT,
      id,
      name: `bench ${i}`,
      tokenHash: hashToken(token),
      createdAt,
      createdBy: 'bench',
    });
  }
  await batchWrite(doc, config.tableName, items);
  let turn = 0;
  /** The next request: a filter on userName, externalId or emails.value of a random user, with the next token. */
  const next = () => {
    const person = people[Math.floor(Math.random() * people.length)] ?? people[0];
    const filter = [`userName eq "${person?.userName}"`, `externalId eq "${person?.externalId}"`, `emails.value eq "${person?.email}"`][
      turn % 3
    ];
    const token = tokens[turn++ % tokens.length];
    return { path: `/scim/v2/Users?filter=${encodeURIComponent(filter ?? '')}`, headers: { authorization: `Bearer ${token}` } };
  };
  return { next };
}
