import type { Random } from '../crypto/random';
import { type Interaction, type InteractionStage, interactionSchema } from '../hosted/interaction';
import { GetCommand } from './commands';
import type { Dynamo } from './dynamo';
import { keys } from './keys';
import { parseRecord } from './records';
import { TTL_ATTRIBUTE } from './table';
import { writeOnce } from './write-once';

/** Pending browser sign-ins (docs/api.md 11.5). */
export interface InteractionStore {
  create(interaction: Interaction): Promise<void>;
  /** The interaction (consistent read), or undefined; an expired one too (the caller checks). */
  find(tenantId: string, id: string): Promise<Interaction | undefined>;
  /**
   * Moves the interaction from `from` to `to` with `set`, in one conditional write: only
   * while it is at `from` and not expired. Of concurrent steps exactly one gets the
   * interaction as it is now; the others, and every replay, get undefined.
   */
  advance(
    ref: { tenantId: string; id: string },
    from: InteractionStage,
    to: InteractionStage,
    now: number,
    set?: Partial<Pick<Interaction, 'userId' | 'sessionId' | 'amr' | 'csrfHash'>>,
  ): Promise<Interaction | undefined>;
}

const toInteraction = (item: Record<string, unknown> | undefined) => parseRecord(interactionSchema, 'interaction', item);

export function dynamoInteractionStore(dynamo: Dynamo, random: Random): InteractionStore {
  const { doc, table } = dynamo;
  return {
    async create(interaction) {
      const { written } = await writeOnce(dynamo, random, {
        put: {
          Item: { ...keys.interaction(interaction.tenantId, interaction.id), ...interaction, [TTL_ATTRIBUTE]: interaction.expiresAt },
          ConditionExpression: 'attribute_not_exists(pk)',
        },
      });
      // The key holds 256 random bits: another record under it is not possible.
      if (!written) throw new Error('Interaction id collision');
    },

    async find(tenantId, id) {
      const { Item } = await doc.send(new GetCommand({ TableName: table, Key: keys.interaction(tenantId, id), ConsistentRead: true }));
      return toInteraction(Item);
    },

    async advance({ tenantId, id }, from, to, now, set = {}) {
      const fields = Object.entries(set).filter(([, value]) => value !== undefined);
      const assignments = fields.map((_, index) => `#f${index} = :f${index}`);
      const { written, item } = await writeOnce(dynamo, random, {
        update: {
          Key: keys.interaction(tenantId, id),
          UpdateExpression: `SET ${['#stage = :to', ...assignments].join(', ')}`,
          ConditionExpression: 'attribute_exists(pk) AND #stage = :from AND expiresAt > :now',
          ExpressionAttributeNames: { '#stage': 'stage', ...Object.fromEntries(fields.map(([name], index) => [`#f${index}`, name])) },
          ExpressionAttributeValues: {
            ':to': to,
            ':from': from,
            ':now': now,
            ...Object.fromEntries(fields.map(([, value], index) => [`:f${index}`, value])),
          },
          ReturnValues: 'ALL_NEW',
        },
      });
      return written ? toInteraction(item) : undefined;
    },
  };
}
