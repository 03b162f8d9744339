// Node built-ins that a function's bundle loads on first use instead of at load
// (docs/decisions/037-built-ins-on-first-use.md). An import of one becomes a module whose
// exports are accessors over `process.getBuiltinModule`: the built-in is loaded by the
// first use that reaches it, not by the cold start of every function that carries the code.
//   - node:http: @middy/util imports it for STATUS_CODES (the message of an error it makes).
//   - node:https: the webhook sender (lib/deliveries/send.ts) imports its `request`.
// The lean DynamoDB client loads node:https (or node:http, locally) itself at its first
// request, so a function whose request reaches no AWS service never loads either.
const LAZY = ['http', 'https'];

/**
 * The CommonJS source of a stand-in for `node:name`: an accessor per export of the real
 * module, as the Node that builds has them. So the build runs on the Node of the Lambda
 * runtime (22: `npm run build`, whose PATH has the project's Node first).
 */
function standIn(name) {
  const keys = Object.keys(process.getBuiltinModule(`node:${name}`));
  return `const load = () => process.getBuiltinModule(${JSON.stringify(`node:${name}`)});
for (const key of ${JSON.stringify(keys)})
  Object.defineProperty(exports, key, { enumerable: true, get: () => load()[key], set: (value) => { load()[key] = value; } });`;
}

/** The esbuild plugin. */
export const builtinsOnFirstUse = {
  name: 'builtins-on-first-use',
  setup(build) {
    const major = Number(process.versions.node.split('.')[0]);
    if (major !== 22) {
      throw new Error(
        `The functions are built on Node 22, the Lambda runtime's, not ${process.version}: the stand-ins of ${LAZY.join(', ')} list its exports (run npm run build)`,
      );
    }
    const filter = new RegExp(`^(node:)?(${LAZY.join('|')})$`);
    build.onResolve({ filter }, (args) => ({ path: args.path.replace(/^node:/, ''), namespace: 'builtin-on-first-use' }));
    build.onLoad({ filter: /.*/, namespace: 'builtin-on-first-use' }, (args) => ({ contents: standIn(args.path), loader: 'js' }));
  },
};
