import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

describe('the runtime the tests run on', () => {
  it('is Node.js 22, the major version of Lambda nodejs22.x', () => {
    expect(process.versions.node).toMatch(/^22\./);
  });

  it('is the Node.js pinned in package.json, not the machine one', () => {
    const { devDependencies } = JSON.parse(readFileSync('package.json', 'utf8')) as { devDependencies: Record<string, string> };
    expect(process.versions.node).toBe(devDependencies.node);
  });
});
