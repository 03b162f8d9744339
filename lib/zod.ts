/**
 * The service's zod: the functional, tree-shakable `zod/mini` API with zod's English
 * messages, which the envelope carries as they are (docs/decisions/035-zod-mini.md).
 * Every module imports zod from here, so the messages are set before anything parses.
 */
import { config, type core, pipe, transform, type ZodMiniPipe, type ZodMiniTransform } from 'zod/mini';
import en from 'zod/v4/locales/en.js';

config(en());

export * from 'zod/mini';

/**
 * zod classic's `preprocess`, which zod/mini leaves out: `fn` turns the input into what
 * `schema` parses (the same pipe classic builds).
 */
export function preprocess<S extends core.$ZodType>(fn: (value: unknown) => unknown, schema: S): ZodMiniPipe<ZodMiniTransform, S> {
  return pipe<ZodMiniTransform, S>(transform(fn), schema);
}
