import { randomUUID } from 'node:crypto';
import { BatchWriteCommand } from '../../lib/store/commands';
import type { Dynamo } from '../../lib/store/dynamo';
import type { Invitation } from '../../lib/store/invitations';
import { keys } from '../../lib/store/keys';

/**
 * Invitation records as lib/store/invitations.ts writes them, put straight into the table:
 * for lists longer than a test can make through the API (50 emails an hour per tenant).
 * Each is `seconds` after `start`, so their order is known; no link opens them.
 */
export async function storeInvitations(
  dynamo: Dynamo,
  tenantId: string,
  records: Array<{ seconds: number; status: Invitation['status']; expiresAt: number }>,
  start = Date.parse('2026-01-01T00:00:00.000Z'),
): Promise<string[]> {
  const items = records.map(({ seconds, status, expiresAt }) => {
    const id = randomUUID();
    const createdAt = new Date(start + seconds * 1000).toISOString();
    return {
      ...keys.invitation(tenantId, id),
      ...keys.tenantInvitation(tenantId, createdAt, id),
      id,
      tenantId,
      email: `${id}@${tenantId}.example`,
      role: 'ANALYST',
      shopId: 'default',
      status,
      tokenHash: 'not the hash of any link',
      expiresAt,
      createdAt,
      createdBy: 'test',
    } satisfies Invitation & Record<string, unknown>;
  });
  for (let i = 0; i < items.length; i += 25) {
    const chunk = items.slice(i, i + 25).map((Item) => ({ PutRequest: { Item } }));
    await dynamo.doc.send(new BatchWriteCommand({ RequestItems: { [dynamo.table]: chunk } }));
  }
  return items.map((item) => item.id);
}
