import { execFileSync } from 'node:child_process';
import { pbkdf2Sync, randomBytes, scryptSync } from 'node:crypto';
import { hash as argon2Hash } from '@node-rs/argon2';
import bcrypt from 'bcryptjs';
import { beforeAll, describe, expect, it } from 'vitest';
import { HASH_CEILINGS, readPasswordHash } from '../../lib/crypto/hash-formats';
import { argon2idHasher } from '../../lib/crypto/password';
import { type App, registerAdmin, testApp } from '../helpers/app';
import { nearRealTime } from '../helpers/clock';
import { type TestDeps, testDeps, uniqueTenant } from '../helpers/deps';
import { failure } from '../helpers/failures';

/*
 * docs/api.md 13.2: every hash format an import takes signs in through POST /auth/login
 * once, is then replaced by the service's Argon2id, and signs in again; wrong passwords
 * count for the lockout; costs above the ceilings are refused at import and at login.
 * The vectors are made here with node:crypto and bcryptjs in each platform's encoding, and
 * checked against published vectors of passlib's and Django's own test suites.
 */

const PASSWORD = 'imported staff passphrase';

const b64 = (bytes: Buffer) => bytes.toString('base64');
const b64NoPad = (bytes: Buffer) => b64(bytes).replace(/=+$/, '');
/** passlib's adapted base64: `.` for `+`, no padding. */
const ab64 = (bytes: Buffer) => b64NoPad(bytes).replace(/\+/g, '.');

/** Hashes of `password` as each platform writes them, at low cost (the format, not the cost, is the subject). */
async function vectors(password: string) {
  const salt = randomBytes(16);
  const textSalt = randomBytes(9).toString('base64url').replace(/[-_]/g, 'x');
  const bcryptHash = (minor: string) => bcrypt.hashSync(password, 4).replace(/^\$2[aby]\$/, `$2${minor}$`);
  return {
    'bcrypt $2a$': bcryptHash('a'),
    'bcrypt $2b$': bcryptHash('b'),
    'bcrypt $2y$': bcryptHash('y'),
    'PBKDF2-SHA256, passlib': `$pbkdf2-sha256$1000$${ab64(salt)}$${ab64(pbkdf2Sync(password, salt, 1000, 32, 'sha256'))}`,
    'PBKDF2-SHA256, Django': `pbkdf2_sha256$1000$${textSalt}$${b64(pbkdf2Sync(password, textSalt, 1000, 32, 'sha256'))}`,
    'scrypt, passlib': `$scrypt$ln=10,r=8,p=1$${b64NoPad(salt)}$${b64NoPad(scryptSync(password, salt, 32, { N: 1024, r: 8, p: 1 }))}`,
    'scrypt, Django': `scrypt$1024$${textSalt}$8$2$${b64(scryptSync(password, textSalt, 64, { N: 1024, r: 8, p: 2 }))}`,
    Argon2i: await argon2Hash(password, { algorithm: 1, memoryCost: 2048, timeCost: 1, parallelism: 1 }),
    Argon2id: await argon2Hash(password, { algorithm: 2, memoryCost: 2048, timeCost: 2, parallelism: 1 }),
  };
}

/** Every format an import takes (docs/api.md 13.2), by the names of the vectors. */
const IMPORTED_FORMATS = [
  'bcrypt $2a$',
  'bcrypt $2b$',
  'bcrypt $2y$',
  'PBKDF2-SHA256, passlib',
  'PBKDF2-SHA256, Django',
  'scrypt, passlib',
  'scrypt, Django',
  'Argon2i',
  'Argon2id',
];

describe('the hash formats (lib/crypto/hash-formats.ts, lib/crypto/password.ts)', () => {
  const hasher = argon2idHasher({ memoryCost: 1024, timeCost: 1, parallelism: 1 });

  // Published vectors: passlib's test_handlers_pbkdf2.py and test_handlers_scrypt.py, Django's test_hashers.py.
  it.each([
    ['password', '$pbkdf2-sha256$1212$4vjV83LKPjQzk31VI4E0Vw$hsYF68OiOUPdDZ1Fg.fJPeq1h/gXXY7acBp9/6c.tmQ'],
    ['password', '$scrypt$ln=16,r=8,p=1$aM15713r3Xsvxbi31lqr1Q$nFNh2CVHVjNldFVKDHDlm4CbdRSCdEBsjjJxD+iCs5E'],
    ['lètmein', 'scrypt$16384$seasalt$8$5$ECMIUp+LMxMSK8xB/IVyba+KYGTI7FTnet025q/1f/vBAVnnP3hdYqJuRi+mJn6ji6ze3Fbb7JEFPKGpuEf5vw=='],
  ])('verifies the published vector of %s: %s', async (password, stored) => {
    expect(await hasher.verify(stored, password)).toEqual({ ok: true, stale: true });
    expect(await hasher.verify(stored, `${password}x`)).toEqual({ ok: false, stale: false });
  });

  it.runIf(hasPython())("agrees with Python's hashlib (an independent PBKDF2 and scrypt) on Django's forms", async () => {
    const script = [
      'import hashlib, base64',
      "p = 'pässword'.encode()",
      "print('pbkdf2_sha256$1000$salty$' + base64.b64encode(hashlib.pbkdf2_hmac('sha256', p, b'salty', 1000)).decode())",
      "print('scrypt$1024$salty$8$2$' + base64.b64encode(hashlib.scrypt(p, salt=b'salty', n=1024, r=8, p=2, dklen=64)).decode())",
    ].join('\n');
    const hashes = execFileSync('python3', ['-c', script], { encoding: 'utf8' }).trim().split('\n');
    expect(hashes).toHaveLength(2);
    for (const stored of hashes) {
      expect(await hasher.verify(stored, 'pässword')).toEqual({ ok: true, stale: true });
      expect(await hasher.verify(stored, 'password')).toEqual({ ok: false, stale: false });
    }
  });

  it('reads the service’s own Argon2id as Argon2, stale only with other parameters', async () => {
    const own = await hasher.hash(PASSWORD);
    expect(readPasswordHash(own)).toEqual({ usable: true, format: { kind: 'argon2', variant: 'argon2id' } });
    expect(await hasher.verify(own, PASSWORD)).toEqual({ ok: true, stale: false });
  });

  it.each([
    ['version 0x10', { version: 0 }],
    ['a 16-byte digest', { outputLen: 16 }],
    ['an 8-byte salt', { salt: Buffer.alloc(8, 7) }],
  ])('counts an Argon2id of today’s costs but %s as stale, so the first sign-in replaces it', async (_, weaker) => {
    const stored = await argon2Hash(PASSWORD, { algorithm: 2, memoryCost: 1024, timeCost: 1, parallelism: 1, ...weaker });
    expect(await hasher.verify(stored, PASSWORD)).toEqual({ ok: true, stale: true });
    expect(await hasher.verify(stored, `${PASSWORD}x`)).toEqual({ ok: false, stale: false });
  });

  it('verifies scrypt with a large r and a small N: the memory OpenSSL counts, 128·r·(N+2) + 128·r·p', async () => {
    const salt = 'seasalt';
    const digest = scryptSync(PASSWORD, salt, 64, { N: 2, r: 8192, p: 1, maxmem: 64 * 1024 * 1024 });
    const stored = `scrypt$2$${salt}$8192$1$${b64(digest)}`;
    expect(await hasher.verify(stored, PASSWORD)).toEqual({ ok: true, stale: true });
    expect(await hasher.verify(stored, `${PASSWORD}x`)).toEqual({ ok: false, stale: false });
  });

  it('answers a foreign hash its verifier throws on as unusable (a wrong password), not a failure', async () => {
    const refusing = argon2idHasher({ memoryCost: 1024, timeCost: 1, parallelism: 1 }, async () => {
      throw new Error('memory limit exceeded');
    });
    const { 'scrypt, Django': stored = '' } = await vectors(PASSWORD);
    expect(await refusing.verify(stored, PASSWORD)).toEqual({ ok: false, stale: false, unusable: true });
  });

  it('spends on a cheap foreign hash at least what an unknown user costs, so time names no username', async () => {
    // The dummy of an unknown user: Argon2id of 64 MiB, 3 passes (about 100 ms here, never
    // under 20 ms on any machine), against a foreign verifier that answers at once. A load
    // only makes the work slower, so the bound holds on a busy machine too.
    const costly = argon2idHasher({ memoryCost: 65536, timeCost: 3, parallelism: 1 }, async () => true);
    const { 'scrypt, Django': stored = '' } = await vectors(PASSWORD);
    const started = performance.now();
    expect(await costly.verify(stored, PASSWORD)).toEqual({ ok: true, stale: true });
    expect(performance.now() - started).toBeGreaterThan(20);
  });

  it('answers a hash above a ceiling as unusable, without doing its work', async () => {
    const started = Date.now();
    const hostile = `$2b$31$${'a'.repeat(53)}`;
    expect(await hasher.verify(hostile, PASSWORD)).toEqual({ ok: false, stale: false, unusable: true });
    expect(Date.now() - started).toBeLessThan(1000);
  });
});

function hasPython(): boolean {
  try {
    execFileSync('python3', ['-c', 'import hashlib; hashlib.scrypt'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

describe('imported hashes at POST /auth/login (docs/api.md 13.2)', () => {
  let deps: TestDeps;
  let app: App;
  let tenantId: string;
  let adminToken: string;
  let hashes: Record<string, string>;

  beforeAll(async () => {
    deps = nearRealTime(await testDeps());
    app = testApp(deps);
    tenantId = uniqueTenant('hashes');
    adminToken = (await registerAdmin(app, tenantId)).token;
    hashes = await vectors(PASSWORD);
    const users = Object.entries(hashes).flatMap(([, passwordHash], i) => [
      { username: `user-${i}`, role: 'OPERATOR', passwordHash },
      { username: `wrong-${i}`, role: 'OPERATOR', passwordHash },
    ]);
    const imported = await importRows(users);
    expect(imported.body).toEqual({ success: true, data: { imported: users.length, failed: [] } });
  });

  const importRows = (users: unknown[]) => app.request('adminImportUsers', { token: adminToken, body: { users } });
  const login = (username: string, password = PASSWORD) => app.request('login', { body: { username, password, tenantId } });
  const storedHash = async (username: string) => (await deps.store.users.findByUsername(tenantId, username))?.passwordHash;
  const formats = () => Object.keys(hashes).map((name, i) => [name, i] as const);

  it.each(IMPORTED_FORMATS)('%s: signs in, is replaced by the service’s Argon2id before the answer, and signs in again', async (name) => {
    const index = formats().find(([format]) => format === name)?.[1] as number;
    const username = `user-${index}`;
    expect(await storedHash(username)).toBe(hashes[name]);
    const first = await login(username);
    expect(first).toMatchObject({ status: 200, body: { success: true, data: { user: { username, role: 'OPERATOR', tenantId } } } });
    const upgraded = await storedHash(username);
    expect(upgraded).toMatch(/^\$argon2id\$v=19\$m=1024,t=1,p=1\$/);
    expect(upgraded).not.toBe(hashes[name]);
    expect((await login(username)).status).toBe(200);
    expect(await storedHash(username)).toBe(upgraded);
  });

  it.each(IMPORTED_FORMATS)('%s: a wrong password is 401, keeps the imported hash, and counts for the lockout', async (name) => {
    const index = formats().find(([format]) => format === name)?.[1] as number;
    const username = `wrong-${index}`;
    for (let i = 0; i < 5; i++) {
      expect(await login(username, 'not the passphrase')).toEqual({
        status: 401,
        headers: expect.anything(),
        body: failure('Invalid credentials'),
      });
    }
    expect(await storedHash(username)).toBe(hashes[name]);
    // The window is full: the right password waits too (docs/api.md 4.1).
    expect((await login(username)).status).toBe(429);
    expect(await storedHash(username)).toBe(hashes[name]);
  });

  const hostile: Array<[string, string, string]> = [
    ['bcrypt cost 14', `$2b$14$${'a'.repeat(53)}`, 'bcrypt: cost at most 13'],
    ['PBKDF2, 2,000,001 iterations', `$pbkdf2-sha256$2000001$${'a'.repeat(22)}$${'a'.repeat(43)}`, 'PBKDF2: at most 2000000 iterations'],
    ['Django PBKDF2, 10^9 iterations', `pbkdf2_sha256$1000000000$salt$${'a'.repeat(43)}=`, 'PBKDF2: at most 2000000 iterations'],
    ['scrypt N·r·p of 2^21', `$scrypt$ln=18,r=8,p=1$${'a'.repeat(22)}$${'a'.repeat(43)}`, 'scrypt: N·r·p at most 1048576'],
    ['Django scrypt, p 2^20', `scrypt$16384$salt$8$1048576$${'a'.repeat(86)}==`, 'scrypt: N·r·p at most 1048576'],
    ['Argon2 of 256 MiB', `$argon2id$v=19$m=262144,t=1,p=1$${'a'.repeat(22)}$${'a'.repeat(43)}`, 'Argon2: m at most 131072'],
    ['Argon2 of 128 MiB × 5 passes', `$argon2id$v=19$m=131072,t=5,p=1$${'a'.repeat(22)}$${'a'.repeat(43)}`, 'Argon2: m·t at most 524288'],
    ['Argon2 of 17 lanes', `$argon2i$v=19$m=65536,t=1,p=17$${'a'.repeat(22)}$${'a'.repeat(43)}`, 'Argon2: p at most 16'],
  ];

  it('refuses at import every hash whose costs are above the ceilings, naming the ceiling', async () => {
    expect(HASH_CEILINGS).toEqual({
      bcryptCost: 13,
      pbkdf2Iterations: 2_000_000,
      scryptWork: 2 ** 20,
      argon2MemoryKib: 131072,
      argon2Work: 524288,
      argon2Parallelism: 16,
    });
    const response = await importRows(hostile.map(([, passwordHash], i) => ({ username: `hostile-${i}`, role: 'ANALYST', passwordHash })));
    expect(response.body).toEqual({
      success: true,
      data: {
        imported: 0,
        failed: hostile.map(([, , limit], index) => ({ index, error: `Password hash cost above the service's ceiling (${limit})` })),
      },
    });
    expect(await deps.store.users.findByUsername(tenantId, 'hostile-0')).toBeUndefined();
  });

  it('admits the costs at the ceilings, which is what platforms produce by default', () => {
    const atCeiling = [
      `$2b$13$${'a'.repeat(53)}`,
      `pbkdf2_sha256$2000000$salt$${'a'.repeat(43)}=`,
      `$scrypt$ln=17,r=8,p=1$${'a'.repeat(22)}$${'a'.repeat(43)}`,
      `scrypt$16384$salt$8$5$${'a'.repeat(86)}==`,
      `$argon2id$v=19$m=131072,t=4,p=16$${'a'.repeat(22)}$${'a'.repeat(43)}`,
    ];
    for (const text of atCeiling) expect(readPasswordHash(text)).toMatchObject({ usable: true });
  });

  it('checks the ceilings again at login: a hash above them is a wrong password, at once, and logged', async () => {
    await importRows([{ username: 'planted', role: 'ANALYST', passwordHash: hashes['bcrypt $2b$'] }]);
    const user = await deps.store.users.findByUsername(tenantId, 'planted');
    // Stored some other way than the import (an older service, a hand edit): bcrypt at cost 31.
    const planted = `$2b$31$${'a'.repeat(53)}`;
    expect(user && (await deps.store.users.replacePasswordHash(user, hashes['bcrypt $2b$'] as string, planted))).toBe(true);
    const started = Date.now();
    expect(await login('planted')).toEqual({ status: 401, headers: expect.anything(), body: failure('Invalid credentials') });
    expect(Date.now() - started).toBeLessThan(2000);
    expect(deps.logs).toContainEqual(expect.objectContaining({ event: 'password_hash_unusable', tenantId, userId: user?.id }));
    expect(await storedHash('planted')).toBe(planted);
  });

  it('fails each malformed or unknown hash with Unsupported password hash', async () => {
    const malformed = [
      'plain text',
      '5f4dcc3b5aa765d61d8327deb882cf99',
      `$2x$10$${'a'.repeat(53)}`,
      `$2b$10$${'a'.repeat(52)}`,
      `$2b$03$${'a'.repeat(53)}`,
      `bcrypt_sha256$$2b$12$${'a'.repeat(53)}`,
      `$pbkdf2-sha256$01212$${'a'.repeat(22)}$${'a'.repeat(43)}`,
      `$pbkdf2-sha256$0$${'a'.repeat(22)}$${'a'.repeat(43)}`,
      `$pbkdf2-sha256$1212$${'a'.repeat(22)}$${'a'.repeat(42)}`,
      `$pbkdf2-sha512$1212$${'a'.repeat(22)}$${'a'.repeat(86)}`,
      `pbkdf2_sha256$1000$salt$${'a'.repeat(44)}`,
      `pbkdf2_sha1$1000$salt$${'a'.repeat(27)}=`,
      `$scrypt$ln=0,r=8,p=1$${'a'.repeat(22)}$${'a'.repeat(43)}`,
      `$7$C6..../....SodiumChloride$kBGj9fHznVYFQMEn/qDCfrDevf9YDtcDdKvEqHJLV8D`,
      `scrypt$1000$salt$8$1$${'a'.repeat(86)}==`,
      // N at or above 2^(16·r) (RFC 7914 section 2): OpenSSL refuses to compute it.
      `scrypt$65536$salt$1$16$${'a'.repeat(86)}==`,
      `$scrypt$ln=16,r=1,p=1$${'a'.repeat(22)}$${'a'.repeat(43)}`,
      `$argon2d$v=19$m=65536,t=3,p=4$${'a'.repeat(22)}$${'a'.repeat(43)}`,
      `$argon2id$v=19$m=65536,t=3,p=4$${'a'.repeat(43)}`,
      `$argon2id$v=19$m=4,t=1,p=1$${'a'.repeat(22)}$${'a'.repeat(43)}`,
      'sha1$salt$2aae6c35c94fcfb415dbe95f408b9ce91ee846ed',
      `${hashes['bcrypt $2b$']}\n`,
    ];
    const response = await importRows(malformed.map((passwordHash, i) => ({ username: `malformed-${i}`, role: 'ANALYST', passwordHash })));
    expect(response.body).toEqual({
      success: true,
      data: { imported: 0, failed: malformed.map((_, index) => ({ index, error: 'Unsupported password hash' })) },
    });
  });
});
