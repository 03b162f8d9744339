import { describe, expect, it } from 'vitest';
import { registerAdmin, testApp } from '../helpers/app';
import { testDeps, uniqueTenant } from '../helpers/deps';

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
};

describe('account enumeration', () => {
  it('answers unknown users and wrong passwords alike, in times whose medians differ by less than 20%', async () => {
    const deps = await testDeps();
    const app = testApp(deps);
    const tenantId = uniqueTenant();
    await registerAdmin(app, tenantId, 'known-user', 'the right passphrase');
    const unknown: number[] = [];
    const wrong: number[] = [];
    const time = async (username: string, into: number[]) => {
      const started = performance.now();
      const response = await app.request('login', { body: { username, password: 'a wrong passphrase', tenantId } });
      into.push(performance.now() - started);
      expect(response).toMatchObject({ status: 401, body: { success: false, error: 'Invalid credentials' } });
    };
    // Warm up, then alternate so that drift in the machine's load hits both alike.
    await time('known-user', []);
    await time('nobody-0', []);
    for (let i = 0; i < 50; i++) {
      deps.clock.advance(15 * 60 + 1); // a new lockout window each round
      await time(`nobody-${i}`, unknown);
      await time('known-user', wrong);
    }
    const [u, w] = [median(unknown), median(wrong)];
    if (process.env.SHOW_TIMINGS) console.log({ unknownMedianMs: u, wrongPasswordMedianMs: w });
    expect(Math.abs(u - w) / Math.max(u, w)).toBeLessThan(0.2);
  }, 60_000);
});
