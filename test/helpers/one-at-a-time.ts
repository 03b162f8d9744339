import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll } from 'vitest';

/**
 * A setup file (vitest.config.ts, project `stack`): its files build and serve `dist/`, or
 * package into `.serverless/`, so no two of them may run at once, though the project runs
 * two files at a time beside the browser files. Each file takes this lock before its
 * tests (a directory made atomically, holding the PID of its worker) and gives it up after
 * them; a lock whose process is gone (a worker killed) is taken over.
 */
const LOCK = join('node_modules', '.cache', 'identity-stack.lock');
const OWNER = join(LOCK, 'pid');

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

function tryTake(): boolean {
  try {
    mkdirSync(LOCK, { recursive: false });
  } catch {
    let owner = Number.NaN;
    try {
      owner = Number(readFileSync(OWNER, 'utf8'));
    } catch {
      // Made a moment ago, its PID not written yet: still taken.
      return false;
    }
    if (alive(owner)) return false;
    rmSync(LOCK, { recursive: true, force: true });
    return tryTake();
  }
  writeFileSync(OWNER, String(process.pid));
  return true;
}

mkdirSync(join('node_modules', '.cache'), { recursive: true });
while (!tryTake()) await new Promise((done) => setTimeout(done, 250));
afterAll(() => rmSync(LOCK, { recursive: true, force: true }));
