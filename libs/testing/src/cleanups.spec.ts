import { Cleanups } from './cleanups';

describe('Cleanups', () => {
  it('runs the teardowns last registered first, each once', async () => {
    const ran: string[] = [];
    const cleanups = new Cleanups();
    for (const name of ['env', 'gateway', 'workers']) cleanups.add(() => ran.push(name));
    await cleanups.run();
    await cleanups.run();
    expect(ran).toEqual(['workers', 'gateway', 'env']);
  });

  it('runs every teardown when one fails, then throws its error', async () => {
    const ran: string[] = [];
    const cleanups = new Cleanups();
    cleanups.add(() => ran.push('env'));
    cleanups.add(() => Promise.reject(new Error('gateway would not close')));
    cleanups.add(() => ran.push('workers'));
    await expect(cleanups.run()).rejects.toThrow('gateway would not close');
    expect(ran).toEqual(['workers', 'env']);
  });

  it('throws every failure when several fail', async () => {
    const cleanups = new Cleanups();
    cleanups.add(() => Promise.reject(new Error('first')));
    cleanups.add(() => {
      throw new Error('second');
    });
    const failure = await cleanups.run().catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(AggregateError);
    expect((failure as AggregateError).errors.map((error: Error) => error.message)).toEqual([
      'second',
      'first',
    ]);
  });
});
