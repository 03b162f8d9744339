// Node built-ins that a function's bundle loads on first use instead of at load
// (docs/decisions/037-built-ins-on-first-use.md). An import of one becomes a module whose
// exports are getters over `process.getBuiltinModule`: the built-in is loaded by the first
// call that reaches it, not by the cold start of every function that carries the code.
//   - node:http: @middy/util imports it for STATUS_CODES (the message of an error it
//     makes); the lean DynamoDB client loads node:https (which loads it) at its first
//     request, so a function whose request reaches no AWS service never loads it.
import { builtinModules } from 'node:module';

const LAZY = ['http'];

/** The CommonJS source of a stand-in for `node:name`: a getter per export of the real module. */
function standIn(name) {
  const keys = Object.keys(process.getBuiltinModule(`node:${name}`));
  return `const load = () => process.getBuiltinModule(${JSON.stringify(`node:${name}`)});
for (const key of ${JSON.stringify(keys)}) Object.defineProperty(exports, key, { enumerable: true, get: () => load()[key] });`;
}

/** The esbuild plugin. */
export const builtinsOnFirstUse = {
  name: 'builtins-on-first-use',
  setup(build) {
    const names = LAZY.filter((name) => builtinModules.includes(name));
    const filter = new RegExp(`^(node:)?(${names.map((name) => name.replace('/', '\\/')).join('|')})$`);
    build.onResolve({ filter }, (args) => ({ path: args.path.replace(/^node:/, ''), namespace: 'builtin-on-first-use' }));
    build.onLoad({ filter: /.*/, namespace: 'builtin-on-first-use' }, (args) => ({ contents: standIn(args.path), loader: 'js' }));
  },
};
