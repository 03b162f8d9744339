/** `npm run openapi`: writes docs/openapi.json (scripts/lib/openapi.ts says from what). */
import { writeFile } from 'node:fs/promises';
import { OPENAPI_FILE, openApiDocument, serialize } from './lib/openapi';

await writeFile(OPENAPI_FILE, serialize(await openApiDocument()));
console.log(`wrote ${OPENAPI_FILE}`);
