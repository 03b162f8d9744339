/**
 * Signing-key and client-secret pepper rotation, one step per call (docs/guides/operators.md,
 * "Key rotation" and "Client-secret pepper rotation"):
 *
 *   npm run keys -- show            [--pepper] [--secret-id ID | --file PATH]
 *   npm run keys -- add [ID]        publish a new key / pepper (the first one is also used)
 *                     [--alg RS256] an RS256 key for ID tokens (docs/api.md 11.4)
 *   npm run keys -- activate ID     sign / hash with it
 *   npm run keys -- retire ID       stop publishing an old key / forget an old pepper
 *   npm run keys -- publish         write the public keys document again from the keys
 *
 * The signing keys have a public twin that the verify-only functions read: every
 * command that writes the keys writes it first, beside them: the secret
 * `<secret id>-public` (or --public-secret-id), the file `<file>.public.json` (or
 * --public-file).
 * `npm run keys -- <command> ...` bundles this script alone (scripts/run-script.mjs) and
 * runs it. Without --pepper it changes the signing keys, with it the client-secret
 * peppers. Without --secret-id or --file it works
 * on the local file (.data/signing-keys.json, .data/oauth-client-secret-pepper). A
 * document that is there but cannot be used is never overwritten, and a write that would
 * undo someone else's change since the read is refused (scripts/lib/rotation.ts). Key
 * material is never printed.
 */
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { publicKeysPath } from '../lib/config';
import { fileLocation, sdkSecretsClient, secretsManagerLocation } from '../lib/secrets/location';
import { option } from './lib/cli';
import { peppersDocument, rotate, signingAlgorithm, signingKeysDocumentOf, withPublicKeys } from './lib/rotation';

const VALUED = new Set(['--secret-id', '--file', '--public-secret-id', '--public-file', '--alg']);

async function main(args: string[]) {
  const [command, id] = args.filter((arg, i) => !arg.startsWith('--') && !VALUED.has(args[i - 1] ?? ''));
  const secretId = option(args, '--secret-id');
  // A plain pepper value meant its UTF-8 bytes in Secrets Manager, base64url in the local file.
  const peppers = args.includes('--pepper') ? peppersDocument(secretId ? 'utf8' : 'base64url') : undefined;
  const signingKeysDocument = signingKeysDocumentOf(signingAlgorithm(option(args, '--alg')));
  const file = option(args, '--file') ?? (peppers ?? signingKeysDocument).defaultFile;
  const client = secretId ? sdkSecretsClient(new SecretsManagerClient({})) : undefined;
  const at = (secret: string | undefined, path: string) => (client && secret ? secretsManagerLocation(client, secret) : fileLocation(path));
  const location = at(secretId, file);
  const print = (line: string) => console.log(line);
  if (peppers) return rotate(peppers, location, command, id, print);
  const publicKeys = at(option(args, '--public-secret-id') ?? `${secretId}-public`, option(args, '--public-file') ?? publicKeysPath(file));
  await rotate(signingKeysDocument, withPublicKeys(location, publicKeys), command, id, print);
}

main(process.argv.slice(2)).catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
