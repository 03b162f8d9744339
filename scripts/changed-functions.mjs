// Prints the functions whose deployment zip differs from what runs in AWS, one per line,
// for per-function deploys (`serverless deploy function -f NAME`). The build and the zips
// are reproducible (esbuild output, fixed zip timestamps), so a function whose code did
// not change has the same SHA-256 as the deployed one (Lambda's CodeSha256).
//
//   node scripts/changed-functions.mjs --stage prod [--region eu-west-1]
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { GetFunctionConfigurationCommand, LambdaClient } from '@aws-sdk/client-lambda';

const args = process.argv.slice(2);
const option = (name, fallback) => (args.includes(name) ? args[args.indexOf(name) + 1] : fallback);
const stage = option('--stage', 'dev');
const region = option('--region', process.env.AWS_REGION ?? 'eu-west-1');

/** Names whose local hash differs from the deployed one (or that are not deployed yet). */
export function changedFunctions(local, deployed) {
  return Object.keys(local)
    .filter((name) => deployed[name] !== local[name])
    .sort();
}

const local = Object.fromEntries(
  readdirSync('.serverless')
    .filter((file) => file.endsWith('.zip'))
    .map((file) => [
      file.slice(0, -4),
      createHash('sha256')
        .update(readFileSync(`.serverless/${file}`))
        .digest('base64'),
    ]),
);
const lambda = new LambdaClient({ region });
const deployed = {};
for (const name of Object.keys(local)) {
  try {
    const config = await lambda.send(new GetFunctionConfigurationCommand({ FunctionName: `identity-service-${stage}-${name}` }));
    deployed[name] = config.CodeSha256;
  } catch (error) {
    if (error.name !== 'ResourceNotFoundException') throw error;
  }
}
for (const name of changedFunctions(local, deployed)) console.log(name);
