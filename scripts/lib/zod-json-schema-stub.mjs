// An esbuild plugin for the function bundles (scripts/build.mjs): zod's JSON Schema
// generation (`z.toJSONSchema`, `schema.toJSONSchema()`, about 18 KB minified, a sixth of
// zod in a bundle) stays out of them. Every zod schema refers to it, so esbuild cannot
// drop it; but only the OpenAPI generator (scripts/lib/openapi.ts, run from the sources)
// generates JSON Schema, never a function. In a bundle each export of these two modules
// is a stand-in that throws when called (the `create…` factories, which schemas call at
// construction, return one), so a function that ever tried would fail loudly, not wrongly.
import { readFileSync } from 'node:fs';

const MODULES = /[\\/]zod[\\/]v4[\\/]core[\\/](json-schema-processors|to-json-schema)\.js$/;

/** The names a module exports (`export function f`, `export const f`, `export { f as g }`). */
function exportNames(source) {
  const names = new Set();
  for (const [, name] of source.matchAll(/^export (?:async )?(?:function\*?|const|let|class) ([A-Za-z_$][\w$]*)/gm)) names.add(name);
  for (const [, list] of source.matchAll(/^export \{([^}]*)\}/gm)) {
    for (const part of list.split(',')) {
      const name = part
        .trim()
        .split(/\s+as\s+/)
        .pop();
      if (name) names.add(name);
    }
  }
  return [...names];
}

export const zodWithoutJsonSchema = {
  name: 'zod-without-json-schema',
  setup(build) {
    build.onLoad({ filter: MODULES }, ({ path }) => {
      const stand = (name) =>
        name.startsWith('create') ? `export const ${name} = () => unavailable;` : `export const ${name} = unavailable;`;
      const contents = [
        'const unavailable = () => {',
        "  throw new Error('zod JSON Schema generation is not bundled into the functions (scripts/lib/zod-json-schema-stub.mjs)');",
        '};',
        ...exportNames(readFileSync(path, 'utf8')).map(stand),
      ].join('\n');
      return { contents, loader: 'js' };
    });
  },
};
