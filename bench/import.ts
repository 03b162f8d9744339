/**
 * The user import (docs/api.md 13.2), through the API like any caller: how many users
 * per second one call of `rows` rows creates, server side (the call's wall time; the
 * hashes are made beforehand), and what a first sign-in with an imported hash costs
 * beside a sign-in with the service's own Argon2id (verify the foreign hash, hash anew,
 * the conditional write that replaces it).
 */
import { pbkdf2Sync, randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import bcrypt from 'bcryptjs';

export interface ImportFigures {
  rows: number;
  /** Wall seconds of the one import call. */
  seconds: number;
  usersPerSecond: number;
  /** Median ms of first sign-ins per imported format, and of sign-ins with the service's Argon2id. */
  firstLoginMs: Record<string, number>;
  loginMs: number;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? Number.NaN;

async function post(url: string, body: unknown, token?: string): Promise<{ status: number; body: { data?: Record<string, unknown> } }> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as { data?: Record<string, unknown> } };
}

/**
 * Imports `rows` users in one call, then signs in `logins` of them once each per format
 * (bcrypt at Auth0's cost 10, PBKDF2 at Django 5.2's 1,000,000 iterations) and as many
 * times with `normal`'s own Argon2id password.
 */
export async function importStage(options: {
  url: string;
  adminToken: string;
  tenantId: string;
  rows: number;
  logins: number;
  normal: { username: string; password: string };
}): Promise<ImportFigures> {
  const { url, adminToken, tenantId, rows, logins, normal } = options;
  const password = randomBytes(12).toString('base64url');
  const salt = randomBytes(9).toString('base64url').replace(/[-_]/g, 'x');
  const formats: Record<string, string> = {
    'bcrypt, cost 10': bcrypt.hashSync(password, 10),
    'PBKDF2-SHA256 (Django), 1,000,000': `pbkdf2_sha256$1000000$${salt}$${pbkdf2Sync(password, salt, 1_000_000, 32, 'sha256').toString('base64')}`,
  };
  const run = randomBytes(4).toString('hex');
  const names = Object.keys(formats);
  const users = Array.from({ length: rows }, (_, i) => ({
    username: `imported-${run}-${i}`,
    role: 'ANALYST',
    passwordHash: formats[names[i % names.length] as string],
  }));
  const started = performance.now();
  const imported = await post(`${url}/admin/users/import`, { users }, adminToken);
  const seconds = (performance.now() - started) / 1000;
  if (imported.status !== 200 || imported.body.data?.imported !== rows) {
    throw new Error(`import: ${imported.status} ${JSON.stringify(imported.body).slice(0, 300)}`);
  }
  const signIn = async (username: string, secret: string) => {
    const begun = performance.now();
    const answer = await post(`${url}/auth/login`, { username, password: secret, tenantId });
    if (answer.status !== 200) throw new Error(`login after import: ${answer.status}`);
    return performance.now() - begun;
  };
  const firstLoginMs: Record<string, number> = {};
  for (const [f, name] of names.entries()) {
    const times: number[] = [];
    for (let i = 0; i < logins; i++) times.push(await signIn(`imported-${run}-${f + i * names.length}`, password));
    firstLoginMs[name] = median(times);
  }
  const normalTimes: number[] = [];
  for (let i = 0; i < logins; i++) normalTimes.push(await signIn(normal.username, normal.password));
  return { rows, seconds, usersPerSecond: rows / seconds, firstLoginMs, loginMs: median(normalTimes) };
}
