import type { Dynamo } from '../../lib/store/dynamo';
import { localDynamo } from './local-dynamo';

type Match = (command: string, input: Record<string, unknown>) => boolean;

/**
 * A DynamoDB client that loses the answer of a chosen command after DynamoDB applied
 * it, as a timeout or a dropped connection does: the SDK then retries the command,
 * which meets its own write. `loseNext(match)` loses the answer of the next command
 * `match` picks (by its name, e.g. `PutItemCommand`, and its input). On the run's table
 * unless `tableName` names another.
 */
export function losingAnswers(tableName?: string): Dynamo & { loseNext(match: Match): void; lost: () => number } {
  const dynamo = localDynamo({ tableName });
  let pending: Match | undefined;
  let lost = 0;
  dynamo.doc.middlewareStack.add(
    (next, context) => async (args) => {
      const result = await next(args);
      if (pending?.(context.commandName ?? '', (args.input ?? {}) as Record<string, unknown>)) {
        pending = undefined;
        lost++;
        throw Object.assign(new Error('Lost answer'), { name: 'TimeoutError', $metadata: {} });
      }
      return result;
    },
    { step: 'deserialize', name: 'loseAnswerForSecurityTests' },
  );
  return Object.assign(dynamo, {
    loseNext: (match: Match) => {
      pending = match;
    },
    lost: () => lost,
  });
}

/** Matches a command whose (update or condition) expression or key mentions `text`. */
export const mentioning =
  (command: string, text: string): Match =>
  (name, input) =>
    name === command && JSON.stringify(input).includes(text);
