/**
 * Signing-key rotation, one step per call (README, "Key rotation"):
 *
 *   node dist/scripts/rotate-signing-key.mjs show            [--secret-id ID | --file PATH]
 *   node dist/scripts/rotate-signing-key.mjs add [KID]       publish a new key (the first one also signs)
 *   node dist/scripts/rotate-signing-key.mjs activate KID    sign with it
 *   node dist/scripts/rotate-signing-key.mjs retire KID      stop publishing an old key
 *
 * `npm run keys -- <command> ...` builds and runs it. Without --secret-id or --file it
 * works on the local keys file (.data/signing-keys.json). Key material is never printed.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { activateKey, addKey, describeKeys, retireKey } from '../lib/tokens/key-rotation';
import { readKeysSecret, writeKeysSecret } from '../lib/tokens/secrets-manager-keys';
import type { SigningKeysDocument } from '../lib/tokens/signing-keys';
import { option } from './lib/cli';

interface KeysLocation {
  read(): Promise<SigningKeysDocument | undefined>;
  write(document: SigningKeysDocument): Promise<void>;
}

function fileLocation(path: string): KeysLocation {
  return {
    read: async () => {
      try {
        return JSON.parse(await readFile(path, 'utf8')) as SigningKeysDocument;
      } catch {
        return undefined;
      }
    },
    write: (document) => writeFile(path, `${JSON.stringify(document, null, 2)}\n`, { mode: 0o600 }),
  };
}

function secretLocation(secretId: string): KeysLocation {
  const client = new SecretsManagerClient({});
  return { read: () => readKeysSecret(client, secretId), write: (document) => writeKeysSecret(client, secretId, document) };
}

async function main(args: string[]) {
  const [command, kid] = args.filter((arg, i) => !arg.startsWith('--') && !args[i - 1]?.startsWith('--'));
  const secretId = option(args, '--secret-id');
  const location = secretId ? secretLocation(secretId) : fileLocation(option(args, '--file') ?? '.data/signing-keys.json');
  const document = await location.read();

  switch (command) {
    case 'show':
      console.log(document ? describeKeys(document) : 'No keys yet.');
      return;
    case 'add': {
      const next = await addKey(document, kid ?? `key-${new Date().toISOString().replace(/[-:.]/g, '').slice(0, 15)}`);
      await location.write(next);
      console.log(describeKeys(next));
      return;
    }
    case 'activate':
    case 'retire': {
      if (!document) throw new Error('No keys yet: run "add" first');
      if (!kid) throw new Error(`Usage: ${command} KID`);
      const next = command === 'activate' ? activateKey(document, kid) : retireKey(document, kid);
      await location.write(next);
      console.log(describeKeys(next));
      return;
    }
    default:
      throw new Error('Usage: rotate-signing-key show|add [KID]|activate KID|retire KID [--secret-id ID | --file PATH]');
  }
}

main(process.argv.slice(2)).catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
