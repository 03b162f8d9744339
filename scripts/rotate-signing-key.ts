/**
 * Signing-key rotation, one step per call (README, "Key rotation"):
 *
 *   node dist/scripts/rotate-signing-key.mjs show            [--secret-id ID | --file PATH]
 *   node dist/scripts/rotate-signing-key.mjs add [KID]       publish a new key (the first one also signs)
 *   node dist/scripts/rotate-signing-key.mjs activate KID    sign with it
 *   node dist/scripts/rotate-signing-key.mjs retire KID      stop publishing an old key
 *
 * `npm run keys -- <command> ...` builds and runs it. Without --secret-id or --file it
 * works on the local keys file (.data/signing-keys.json). A document that is there but
 * cannot be used is never overwritten, and a write that would undo someone else's
 * change since the read is refused (scripts/lib/rotation.ts). Key material is never printed.
 */
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { fileLocation, secretsManagerLocation } from '../lib/secrets/location';
import { option } from './lib/cli';
import { rotate, signingKeysDocument } from './lib/rotation';

async function main(args: string[]) {
  const [command, id] = args.filter((arg, i) => !arg.startsWith('--') && !args[i - 1]?.startsWith('--'));
  const kind = signingKeysDocument;
  const secretId = option(args, '--secret-id');
  const location = secretId ? secretsManagerLocation(new SecretsManagerClient({}), secretId) : fileLocation(option(args, '--file') ?? kind.defaultFile);
  await rotate(kind, location, command, id, (line) => console.log(line));
}

main(process.argv.slice(2)).catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
