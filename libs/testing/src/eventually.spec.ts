import { eventually } from './eventually';

describe('eventually', () => {
  it('resolves with the first truthy answer, probing again until it comes', async () => {
    let probes = 0;
    await expect(eventually(() => ++probes >= 3 && `probe ${probes}`, { intervalMs: 1 })).resolves.toBe(
      'probe 3',
    );
    expect(probes).toBe(3);
  });

  it('probes again after a throw, and fails with the last error past the deadline', async () => {
    let probes = 0;
    const failing = eventually(
      () => {
        probes++;
        throw new Error(`not yet (${probes})`);
      },
      { timeoutMs: 30, intervalMs: 1 },
    );
    await expect(failing).rejects.toThrow(/^not yet \(\d+\)$/);
    expect(probes).toBeGreaterThan(1);
  });

  it('fails naming what it awaited and the last answer when the state never comes', async () => {
    await expect(eventually(() => 0, { timeoutMs: 10, intervalMs: 1, what: 'the row' })).rejects.toThrow(
      'timed out after 10 ms waiting for the row (last answer: 0)',
    );
  });

  it('keeps its deadline when Date.now is stopped', async () => {
    const clock = jest.spyOn(Date, 'now').mockReturnValue(0);
    try {
      await expect(eventually(() => false, { timeoutMs: 10, intervalMs: 1 })).rejects.toThrow('timed out');
    } finally {
      clock.mockRestore();
    }
  });
});
