import { describe, expect, it } from 'vitest';
import { testDeps, uniqueTenant } from './deps';
import { faultPlan, faultyStores } from './faulty-stores';

describe('the fault plan of the fault-injection suite (test/security/injected-faults/)', () => {
  it('numbers every store call, and names the calls that sent a write, also when calls run at once', async () => {
    const deps = await testDeps();
    const plan = faultPlan();
    const { stores } = faultyStores(deps.store, deps.mfaDelivery, plan, deps.dynamo);
    const tenantId = uniqueTenant('fault-plan');
    const shop = { tenantId, shopId: 'main', name: 'Main', createdAt: new Date(0).toISOString(), createdBy: 'someone' };

    plan.reset();
    await stores.shops.find(tenantId, 'main');
    await Promise.all([stores.shops.create(shop), stores.shops.list(tenantId), stores.tenants.find(tenantId)]);
    // A conditional write that fails its condition still sent a write.
    await stores.shops.create({ ...shop, name: 'Again' });
    expect(plan.calls).toEqual(['shops.find', 'shops.create', 'shops.list', 'tenants.find', 'shops.create']);
    expect([...plan.writers].sort()).toEqual([2, 5]);

    // Armed, the count starts again: the writers with it.
    plan.arm(1, 'after');
    await expect(stores.shops.create({ ...shop, shopId: 'second' })).rejects.toThrow('socket hang up');
    expect(plan.fired()).toBe(true);
    plan.disarm();
    expect([...plan.writers]).toEqual([1]);
    expect(await deps.store.shops.find(tenantId, 'second')).toMatchObject({ shopId: 'second' });
  });

  it('given a clean run, fails the call it named there, in whatever order calls made at once start', async () => {
    const deps = await testDeps();
    const plan = faultPlan();
    const { stores } = faultyStores(deps.store, deps.mfaDelivery, plan, deps.dynamo);
    const tenantId = uniqueTenant('fault-plan');
    const clean = ['shops.find', 'shops.list', 'tenants.find', 'shops.list'];
    // The third call of the clean run, the tenant's read, started first this time.
    plan.arm(3, 'before', clean);
    const results = await Promise.allSettled([
      stores.tenants.find(tenantId),
      stores.shops.find(tenantId, 'main'),
      stores.shops.list(tenantId),
    ]);
    expect(results.map((result) => result.status)).toEqual(['rejected', 'fulfilled', 'fulfilled']);
    expect(plan.fired()).toBe(true);
    // By occurrence: the second `shops.list`, not the first.
    plan.arm(4, 'before', clean);
    await stores.shops.list(tenantId);
    expect(plan.fired()).toBe(false);
    await expect(stores.shops.list(tenantId)).rejects.toThrow('socket hang up');
    expect(plan.fired()).toBe(true);
    plan.disarm();
  });
});
