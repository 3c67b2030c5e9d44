import { DeliveryPool } from './delivery-pool';

/** A task that runs until its test ends it. */
function gate() {
  let open: () => void = () => undefined;
  const done = new Promise<void>((resolve) => (open = resolve));
  return { task: () => done, open };
}

describe('DeliveryPool', () => {
  it('runs at most perEndpoint tasks of one endpoint; the next starts when one ends', async () => {
    const pool = new DeliveryPool({ perEndpoint: 2, global: 10, waitMs: 60_000 });
    const gates = [gate(), gate(), gate()];
    const runs = gates.map((g) => pool.run('a', g.task));
    expect(pool.running('a')).toBe(2);
    expect(pool.waiting).toBe(1);
    gates[0]?.open();
    await runs[0];
    expect(pool.running('a')).toBe(2);
    expect(pool.waiting).toBe(0);
    gates[1]?.open();
    gates[2]?.open();
    await expect(Promise.all(runs)).resolves.toEqual([
      { ran: true, value: undefined },
      { ran: true, value: undefined },
      { ran: true, value: undefined },
    ]);
    expect(pool.running('a')).toBe(0);
  });

  it('a busy endpoint does not hold back another; the global cap is shared in turn', async () => {
    const pool = new DeliveryPool({ perEndpoint: 2, global: 3, waitMs: 60_000 });
    const slow = [gate(), gate(), gate()];
    const slowRuns = slow.map((g) => pool.run('slow', g.task));
    const order: string[] = [];
    const quick = ['q1', 'q2'].map((name) =>
      pool.run('quick', () => {
        order.push(name);
        return Promise.resolve(name);
      }),
    );
    // slow holds its bound (2) of the 3 slots; quick takes the third and finishes
    expect(pool.running('slow')).toBe(2);
    await expect(Promise.all(quick)).resolves.toEqual([
      { ran: true, value: 'q1' },
      { ran: true, value: 'q2' },
    ]);
    expect(order).toEqual(['q1', 'q2']);
    for (const g of slow) g.open();
    await Promise.all(slowRuns);
  });

  it('a task that cannot start within waitMs is given up, and never runs', async () => {
    jest.useFakeTimers();
    try {
      const pool = new DeliveryPool({ perEndpoint: 1, global: 10, waitMs: 1_000 });
      const held = gate();
      const first = pool.run('a', held.task);
      let ran = false;
      const second = pool.run('a', () => {
        ran = true;
        return Promise.resolve();
      });
      jest.advanceTimersByTime(1_000);
      await expect(second).resolves.toEqual({ ran: false });
      expect(pool.waiting).toBe(0);
      held.open();
      await first;
      expect(ran).toBe(false);
    } finally {
      jest.useRealTimers();
    }
  });

  it('a task that fails rejects and frees its slot', async () => {
    const pool = new DeliveryPool({ perEndpoint: 1, global: 1, waitMs: 60_000 });
    await expect(pool.run('a', () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    await expect(pool.run('a', () => Promise.resolve(1))).resolves.toEqual({ ran: true, value: 1 });
  });
});
