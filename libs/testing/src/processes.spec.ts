import { startTogether, type Started } from './processes';

/** A start that resolves (or fails) after `delayMs`, with a process whose stops are counted. */
function fakeStart(delayMs: number, fails = false) {
  const stops: string[] = [];
  const start = async (): Promise<Started & { name: number }> => {
    await new Promise((resolve) => setTimeout(resolve, delayMs));
    if (fails) throw new Error(`start after ${delayMs} ms failed`);
    return {
      name: delayMs,
      app: {
        stop: (signal: NodeJS.Signals = 'SIGTERM') => {
          stops.push(signal);
          return Promise.resolve(null);
        },
      },
    };
  };
  return { start, stops };
}

describe('startTogether', () => {
  it('resolves to every start, in order, and stops none', async () => {
    const first = fakeStart(5);
    const second = fakeStart(1);
    const [a, b] = await startTogether([first.start, second.start]);
    expect([a.name, b.name]).toEqual([5, 1]);
    expect([first.stops, second.stops]).toEqual([[], []]);
  });

  it('when one start fails, kills the ones started before and after it, then throws its error', async () => {
    const early = fakeStart(1);
    const failing = fakeStart(5, true);
    const late = fakeStart(10);
    await expect(startTogether([early.start, failing.start, late.start])).rejects.toThrow(
      'start after 5 ms failed',
    );
    expect(early.stops).toEqual(['SIGKILL']);
    expect(late.stops).toEqual(['SIGKILL']);
    expect(failing.stops).toEqual([]);
  });
});
