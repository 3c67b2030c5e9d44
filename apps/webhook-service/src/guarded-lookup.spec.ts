import type { lookup } from 'node:dns';
import { PUBLIC_TARGETS_ONLY, webhookTargetPolicy } from '@kessai/domain';
import { ForbiddenAddressError, guardedLookup } from './guarded-lookup';

/** The connect-time address check with a fake resolver: what DNS answers now decides. */
describe('guardedLookup', () => {
  const resolver = (answers: Record<string, string[]>) =>
    ((hostname: string, options: { all?: boolean }, callback: (...args: unknown[]) => void) => {
      const addresses = answers[hostname];
      if (!addresses) return callback(Object.assign(new Error('not found'), { code: 'ENOTFOUND' }));
      if (options.all)
        return callback(
          null,
          addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 })),
        );
      callback(null, addresses[0], 4);
    }) as unknown as typeof lookup;
  const run = (
    host: string,
    all: boolean,
    answers: Record<string, string[]>,
    policy = PUBLIC_TARGETS_ONLY,
    port = 443,
  ) =>
    new Promise<{ error: Error | null; address: unknown }>((resolve) =>
      guardedLookup(policy, port, resolver(answers))(host, { all }, (error, address) =>
        resolve({ error, address }),
      ),
    );

  it('refuses a name resolving to a forbidden address, alone or among public ones', async () => {
    for (const all of [true, false]) {
      const rebound = await run('shop.example.com', all, { 'shop.example.com': ['127.0.0.1'] });
      expect(rebound.error).toBeInstanceOf(ForbiddenAddressError);
      expect(rebound.error?.message).toContain('127.0.0.1');
    }
    const mixed = await run('shop.example.com', true, {
      'shop.example.com': ['93.184.216.34', '169.254.169.254'],
    });
    expect(mixed.error).toBeInstanceOf(ForbiddenAddressError);
  });

  it('passes public addresses and resolver failures through', async () => {
    const ok = await run('shop.example.com', true, { 'shop.example.com': ['93.184.216.34', '2606:4700::1'] });
    expect(ok.error).toBeNull();
    expect(ok.address).toEqual([
      { address: '93.184.216.34', family: 4 },
      { address: '2606:4700::1', family: 6 },
    ]);
    const missing = await run('gone.example.com', true, {});
    expect(missing.error).toMatchObject({ code: 'ENOTFOUND' });
  });

  it('lets through what the operator allows: any address, or an exact address and port', async () => {
    const answers = { 'receiver.example.com': ['127.0.0.1'], 'v6.example.com': ['::1'] };
    const anything = webhookTargetPolicy(true, []);
    expect((await run('receiver.example.com', true, answers, anything)).error).toBeNull();
    const listed = webhookTargetPolicy(false, ['127.0.0.1:8080', '[0:0::1]:8443']);
    expect((await run('receiver.example.com', true, answers, listed, 8080)).error).toBeNull();
    expect((await run('receiver.example.com', false, answers, listed, 8081)).error).toBeInstanceOf(
      ForbiddenAddressError,
    );
    expect((await run('v6.example.com', true, answers, listed, 8443)).error).toBeNull();
  });
});
