import { marshall, type NativeAttributeValue, unmarshall } from '@aws-sdk/util-dynamodb';

/**
 * The DynamoDB document commands the stores send (lib/store/dynamo-client.ts sends them):
 * the same names and input shapes as `@aws-sdk/lib-dynamodb`'s, so a store reads as it
 * did with the SDK, without loading the SDK on a cold start. Each command turns its
 * plain values into DynamoDB's attribute values and its answer back (with the SDK's
 * `@aws-sdk/util-dynamodb`, undefined values left out as the stores' client always did).
 */

/** An item, a key or expression values as plain JavaScript values (the SDK's `NativeAttributeValue`). */
export type Item = Record<string, NativeAttributeValue>;
type Names = Record<string, string>;
/** An item as DynamoDB's JSON protocol carries it (`{ "S": "..." }` per attribute). */
type Wire = Record<string, unknown>;
type ReturnOnFailure = 'ALL_OLD' | 'NONE';
type ReturnValues = 'NONE' | 'ALL_OLD' | 'UPDATED_OLD' | 'ALL_NEW' | 'UPDATED_NEW';

interface Expressions {
  ConditionExpression?: string | undefined;
  ExpressionAttributeNames?: Names | undefined;
  ExpressionAttributeValues?: Item | undefined;
}

/** GetItem: one item by its key. */
export interface GetCommandInput {
  TableName: string | undefined;
  Key: Item | undefined;
  ConsistentRead?: boolean | undefined;
  ProjectionExpression?: string | undefined;
  ExpressionAttributeNames?: Names | undefined;
}
/** The item, if there is one. */
export interface GetCommandOutput {
  Item?: Item | undefined;
}

/** PutItem: writes a whole item, under an optional condition. */
export interface PutCommandInput extends Expressions {
  TableName: string | undefined;
  Item: Item | undefined;
  ReturnValues?: ReturnValues | undefined;
  ReturnValuesOnConditionCheckFailure?: ReturnOnFailure | undefined;
}
/** UpdateItem: changes some attributes of an item, under an optional condition. */
export interface UpdateCommandInput extends Expressions {
  TableName: string | undefined;
  Key: Item | undefined;
  UpdateExpression?: string | undefined;
  ReturnValues?: ReturnValues | undefined;
  ReturnValuesOnConditionCheckFailure?: ReturnOnFailure | undefined;
}
/** DeleteItem: removes an item, under an optional condition. */
export interface DeleteCommandInput extends Expressions {
  TableName: string | undefined;
  Key: Item | undefined;
  ReturnValues?: ReturnValues | undefined;
  ReturnValuesOnConditionCheckFailure?: ReturnOnFailure | undefined;
}
/** The item before (or after) a write, as `ReturnValues` asked. */
export interface WriteCommandOutput {
  Attributes?: Item | undefined;
}
export type PutCommandOutput = WriteCommandOutput;
export type UpdateCommandOutput = WriteCommandOutput;
export type DeleteCommandOutput = WriteCommandOutput;

/** Query: the items of one partition (of the table or an index), a page at a time. */
export interface QueryCommandInput {
  TableName: string | undefined;
  IndexName?: string | undefined;
  KeyConditionExpression?: string | undefined;
  FilterExpression?: string | undefined;
  ProjectionExpression?: string | undefined;
  ExpressionAttributeNames?: Names | undefined;
  ExpressionAttributeValues?: Item | undefined;
  ExclusiveStartKey?: Item | undefined;
  Limit?: number | undefined;
  ScanIndexForward?: boolean | undefined;
  ConsistentRead?: boolean | undefined;
  /** `COUNT`: only how many items match, none of them. */
  Select?: 'COUNT' | undefined;
}
/** A page of a query; `LastEvaluatedKey` is where the next one starts. */
export interface QueryCommandOutput {
  Items?: Item[] | undefined;
  Count?: number | undefined;
  LastEvaluatedKey?: Item | undefined;
}

/** The keys to read from one table in a BatchGetItem. */
export interface KeysAndAttributes {
  Keys: Item[] | undefined;
  ConsistentRead?: boolean | undefined;
  ProjectionExpression?: string | undefined;
  ExpressionAttributeNames?: Names | undefined;
}
/** BatchGetItem: up to 100 items by key, by table. */
export interface BatchGetCommandInput {
  RequestItems: Record<string, KeysAndAttributes> | undefined;
}
/** The items found, by table, and the keys DynamoDB left for another call. */
export interface BatchGetCommandOutput {
  Responses?: Record<string, Item[]> | undefined;
  UnprocessedKeys?: Record<string, KeysAndAttributes> | undefined;
}

/** One read of a TransactGetItems. */
export interface TransactGetItem {
  Get: {
    TableName: string | undefined;
    Key: Item | undefined;
    ProjectionExpression?: string | undefined;
    ExpressionAttributeNames?: Names | undefined;
  };
}
/** TransactGetItems: up to 100 items read as of one moment, isolated from transactions. */
export interface TransactGetCommandInput {
  TransactItems: TransactGetItem[] | undefined;
}
/** The items read, in the order asked; an entry without `Item` is one not found. */
export interface TransactGetCommandOutput {
  Responses?: Array<{ Item?: Item | undefined }> | undefined;
}

/** One put or delete of a BatchWriteItem. */
export interface WriteRequest {
  PutRequest?: { Item: Item | undefined } | undefined;
  DeleteRequest?: { Key: Item | undefined } | undefined;
}
/** BatchWriteItem: up to 25 puts and deletes, by table, without conditions. */
export interface BatchWriteCommandInput {
  RequestItems: Record<string, WriteRequest[]> | undefined;
}
/** The writes DynamoDB left for another call, by table. */
export interface BatchWriteCommandOutput {
  UnprocessedItems?: Record<string, WriteRequest[]> | undefined;
}

/** One item of a transaction: exactly one of its members. */
export interface TransactWriteItem {
  ConditionCheck?:
    | (Expressions & { TableName: string | undefined; Key: Item | undefined; ConditionExpression: string | undefined })
    | undefined;
  Put?: Omit<PutCommandInput, 'ReturnValues'> | undefined;
  Delete?: Omit<DeleteCommandInput, 'ReturnValues'> | undefined;
  Update?: (Omit<UpdateCommandInput, 'ReturnValues'> & { UpdateExpression: string | undefined }) | undefined;
}
/** TransactWriteItems: all of its items are written, or none. */
export interface TransactWriteCommandInput {
  TransactItems: TransactWriteItem[] | undefined;
  /** Makes a retried transaction idempotent; the client draws one per send when it is missing. */
  ClientRequestToken?: string | undefined;
}
/** A transaction answers nothing; a refusal is a `TransactionCanceledException`. */
export type TransactWriteCommandOutput = Record<string, never>;

const toWire = (item: Item | undefined): Wire | undefined =>
  item === undefined ? undefined : marshall(item, { removeUndefinedValues: true });
const fromWire = (item: unknown): Item | undefined =>
  item === undefined ? undefined : unmarshall(item as Parameters<typeof unmarshall>[0]);
const fromWireAll = (items: unknown): Item[] | undefined => (Array.isArray(items) ? items.map((item) => fromWire(item) ?? {}) : undefined);
const mapValues = <T, R>(record: Record<string, T> | undefined, map: (value: T) => R): Record<string, R> | undefined =>
  record === undefined ? undefined : Object.fromEntries(Object.entries(record).map(([key, value]) => [key, map(value)]));

/** The expression values of an input in DynamoDB's form; its other members as they are. */
function withValues<T extends { ExpressionAttributeValues?: Item | undefined }>(input: T): Omit<T, 'ExpressionAttributeValues'> & Wire {
  return { ...input, ExpressionAttributeValues: toWire(input.ExpressionAttributeValues) };
}

const keysToWire = (request: KeysAndAttributes) => ({ ...request, Keys: request.Keys?.map((key) => toWire(key)) });
const keysFromWire = (request: { Keys?: unknown[] }): KeysAndAttributes => ({ ...request, Keys: fromWireAll(request.Keys) });
const writeToWire = (request: WriteRequest) => ({
  ...(request.PutRequest ? { PutRequest: { Item: toWire(request.PutRequest.Item) } } : {}),
  ...(request.DeleteRequest ? { DeleteRequest: { Key: toWire(request.DeleteRequest.Key) } } : {}),
});
const writeFromWire = (request: { PutRequest?: { Item: unknown }; DeleteRequest?: { Key: unknown } }): WriteRequest => ({
  ...(request.PutRequest ? { PutRequest: { Item: fromWire(request.PutRequest.Item) } } : {}),
  ...(request.DeleteRequest ? { DeleteRequest: { Key: fromWire(request.DeleteRequest.Key) } } : {}),
});

/**
 * A DynamoDB operation with plain values: `operation` names it on the wire
 * (`X-Amz-Target: DynamoDB_20120810.<operation>`), `request()` is its JSON body and
 * `answer()` reads the JSON DynamoDB answered.
 */
export abstract class DocumentCommand<Input, Output> {
  /** The output type, for `send` to infer; never set. */
  declare readonly output?: Output;
  abstract readonly operation: string;
  constructor(readonly input: Input) {}
  abstract request(): Wire;
  abstract answer(body: Wire): Output;
}

/** Reads one item (GetItem). */
export class GetCommand extends DocumentCommand<GetCommandInput, GetCommandOutput> {
  override readonly operation = 'GetItem';
  override request() {
    return { ...this.input, Key: toWire(this.input.Key) };
  }
  override answer(body: Wire) {
    return { Item: fromWire(body.Item) };
  }
}

/** Writes one item (PutItem). */
export class PutCommand extends DocumentCommand<PutCommandInput, PutCommandOutput> {
  override readonly operation = 'PutItem';
  override request() {
    return { ...withValues(this.input), Item: toWire(this.input.Item) };
  }
  override answer(body: Wire) {
    return { Attributes: fromWire(body.Attributes) };
  }
}

/** Updates one item (UpdateItem). */
export class UpdateCommand extends DocumentCommand<UpdateCommandInput, UpdateCommandOutput> {
  override readonly operation = 'UpdateItem';
  override request() {
    return { ...withValues(this.input), Key: toWire(this.input.Key) };
  }
  override answer(body: Wire) {
    return { Attributes: fromWire(body.Attributes) };
  }
}

/** Deletes one item (DeleteItem). */
export class DeleteCommand extends DocumentCommand<DeleteCommandInput, DeleteCommandOutput> {
  override readonly operation = 'DeleteItem';
  override request() {
    return { ...withValues(this.input), Key: toWire(this.input.Key) };
  }
  override answer(body: Wire) {
    return { Attributes: fromWire(body.Attributes) };
  }
}

/** Reads a page of a partition (Query). */
export class QueryCommand extends DocumentCommand<QueryCommandInput, QueryCommandOutput> {
  override readonly operation = 'Query';
  override request() {
    return { ...withValues(this.input), ExclusiveStartKey: toWire(this.input.ExclusiveStartKey) };
  }
  override answer(body: Wire) {
    return {
      Items: fromWireAll(body.Items),
      Count: typeof body.Count === 'number' ? body.Count : undefined,
      LastEvaluatedKey: fromWire(body.LastEvaluatedKey),
    };
  }
}

/** Reads items by key (BatchGetItem). */
export class BatchGetCommand extends DocumentCommand<BatchGetCommandInput, BatchGetCommandOutput> {
  override readonly operation = 'BatchGetItem';
  override request() {
    return { RequestItems: mapValues(this.input.RequestItems, keysToWire) };
  }
  override answer(body: Wire) {
    return {
      Responses: mapValues(body.Responses as Record<string, unknown[]> | undefined, (items) => fromWireAll(items) ?? []),
      UnprocessedKeys: mapValues(body.UnprocessedKeys as Record<string, { Keys?: unknown[] }> | undefined, keysFromWire),
    };
  }
}

/** Reads items as of one moment (TransactGetItems): no transaction is seen half-done. */
export class TransactGetCommand extends DocumentCommand<TransactGetCommandInput, TransactGetCommandOutput> {
  override readonly operation = 'TransactGetItems';
  override request() {
    return { TransactItems: this.input.TransactItems?.map(({ Get }) => ({ Get: { ...Get, Key: toWire(Get.Key) } })) };
  }
  override answer(body: Wire) {
    const responses = body.Responses as Array<{ Item?: unknown }> | undefined;
    return { Responses: responses?.map((response) => ({ Item: fromWire(response.Item) })) };
  }
}

/** Puts and deletes items without conditions (BatchWriteItem). */
export class BatchWriteCommand extends DocumentCommand<BatchWriteCommandInput, BatchWriteCommandOutput> {
  override readonly operation = 'BatchWriteItem';
  override request() {
    return { RequestItems: mapValues(this.input.RequestItems, (requests) => requests.map(writeToWire)) };
  }
  override answer(body: Wire) {
    return {
      UnprocessedItems: mapValues(
        body.UnprocessedItems as Record<string, Array<Parameters<typeof writeFromWire>[0]>> | undefined,
        (requests) => requests.map(writeFromWire),
      ),
    };
  }
}

/** Writes items together or not at all (TransactWriteItems). */
export class TransactWriteCommand extends DocumentCommand<TransactWriteCommandInput, TransactWriteCommandOutput> {
  override readonly operation = 'TransactWriteItems';
  override request() {
    return {
      ...this.input,
      TransactItems: this.input.TransactItems?.map(({ ConditionCheck, Put, Delete, Update }) => ({
        ...(ConditionCheck ? { ConditionCheck: { ...withValues(ConditionCheck), Key: toWire(ConditionCheck.Key) } } : {}),
        ...(Put ? { Put: { ...withValues(Put), Item: toWire(Put.Item) } } : {}),
        ...(Delete ? { Delete: { ...withValues(Delete), Key: toWire(Delete.Key) } } : {}),
        ...(Update ? { Update: { ...withValues(Update), Key: toWire(Update.Key) } } : {}),
      })),
    };
  }
  override answer(): TransactWriteCommandOutput {
    return {};
  }
}
