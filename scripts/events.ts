/**
 * `npm run events`: prints the events `npm start` published (docs/api.md 17.1), one
 * CloudEvent per line as JSON, oldest first, as the stage's EventBridge bus would have
 * received them.
 *
 *   npm run events                                   every event so far
 *   npm run events -- --tenant acme --type identity.user.disabled
 *   npm run events -- --follow                       and then each new one as it comes
 *
 * Reads EVENTS_FILE (default .data/events.jsonl). There is no such file in AWS.
 */
import { createReadStream, existsSync, watchFile } from 'node:fs';
import { stat } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import { option } from './lib/cli';

const FILE = process.env.EVENTS_FILE ?? '.data/events.jsonl';

async function main(args: string[]) {
  const tenant = option(args, '--tenant');
  const type = option(args, '--type');
  const wanted = (line: string) => {
    if (!tenant && !type) return true;
    const event = JSON.parse(line) as { tenantid?: string; type?: string };
    return (!tenant || event.tenantid === tenant) && (!type || event.type === type);
  };
  let printed = 0;
  const printFrom = async (start: number) => {
    const lines = createInterface({ input: createReadStream(FILE, { start, encoding: 'utf8' }) });
    for await (const line of lines) if (line.trim() && wanted(line)) console.log(line);
    return (await stat(FILE)).size;
  };
  if (!existsSync(FILE)) {
    if (!args.includes('--follow')) return console.error(`No events yet: ${FILE} is written while npm start runs`);
  } else printed = await printFrom(0);
  if (!args.includes('--follow')) return;
  watchFile(FILE, { interval: 250 }, async (current) => {
    if (current.size > printed) printed = await printFrom(printed);
  });
}

main(process.argv.slice(2)).catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
