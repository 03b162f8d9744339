/**
 * The time of one Argon2id hash (and one verification) with the configured
 * parameters, alone on the CPU the server uses: the floor under login's latency.
 * Prints JSON: medians in milliseconds.
 */
import { performance } from 'node:perf_hooks';
import { argon2idHasher, OWASP_ARGON2ID } from '../lib/crypto/password';

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] as number;

async function main() {
  const hasher = argon2idHasher();
  const password = 'a password of ordinary length';
  const stored = await hasher.hash(password);
  for (let i = 0; i < 3; i++) await hasher.verify(stored, password);
  const hashes: number[] = [];
  const verifies: number[] = [];
  for (let i = 0; i < 15; i++) {
    let start = performance.now();
    await hasher.hash(password);
    hashes.push(performance.now() - start);
    start = performance.now();
    await hasher.verify(stored, password);
    verifies.push(performance.now() - start);
  }
  process.stdout.write(`@@argon2 ${JSON.stringify({ params: OWASP_ARGON2ID, hashMs: median(hashes), verifyMs: median(verifies) })}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`argon2-probe: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
