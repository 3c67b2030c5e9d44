import { ValidationError } from '@kessai/domain';
import { WebhookUrlPolicy } from './webhook-url.policy';

/** The URL rules with a fake resolver: what each mode does with the addresses a name resolves to. */
describe('WebhookUrlPolicy', () => {
  const policy = (
    addresses: Record<string, string[]>,
    settings: { allowPrivate?: boolean; allowed?: string[] } = {},
  ) => {
    const checked = new WebhookUrlPolicy({
      WEBHOOK_ALLOW_PRIVATE_TARGETS: settings.allowPrivate ?? false,
      WEBHOOK_ALLOWED_PRIVATE_TARGETS: settings.allowed ?? [],
    });
    checked.resolve = (host) =>
      host in addresses ? Promise.resolve(addresses[host] ?? []) : Promise.reject(new Error('ENOTFOUND'));
    return checked;
  };
  const reasonOf = async (promise: Promise<unknown>) => {
    try {
      await promise;
      return null;
    } catch (error) {
      expect(error).toBeInstanceOf(ValidationError);
      return (error as ValidationError).errors;
    }
  };

  it('live mode: refuses a name resolving to a forbidden address, any of them', async () => {
    const urls = policy({
      'rebind.example.com': ['127.0.0.1'],
      'mixed.example.com': ['93.184.216.34', '10.0.0.7'],
      'metadata.example.com': ['169.254.169.254'],
      'v6.example.com': ['::1'],
      'shop.example.com': ['93.184.216.34', '2606:2800:220:1:248:1893:25c8:1946'],
    });
    for (const host of ['rebind', 'mixed', 'metadata', 'v6'])
      expect(await reasonOf(urls.check(`https://${host}.example.com/hook`, 'live'))).toEqual([
        { field: 'url', reason: 'FORBIDDEN_ADDRESS' },
      ]);
    await expect(urls.check('https://shop.example.com/hook', 'live')).resolves.toBe(
      'https://shop.example.com/hook',
    );
  });

  it('live mode: refuses a name that does not resolve', async () => {
    expect(await reasonOf(policy({}).check('https://nowhere.example.com/hook', 'live'))).toEqual([
      { field: 'url', reason: 'UNRESOLVABLE_HOST' },
    ]);
  });

  it('test mode: the same address rule; a name that does not resolve yet is left to the tries', async () => {
    const urls = policy({ 'rebind.example.com': ['127.0.0.1'], 'shop.example.com': ['93.184.216.34'] });
    for (const url of [
      'http://127.0.0.1:4010/hook',
      'http://127.1/hook',
      'http://2130706433/hook',
      'http://0177.0.0.1/hook',
      'http://[::1]/hook',
      'http://localhost:4010/hook',
      'http://rebind.example.com/hook',
    ])
      expect({ url, reasons: await reasonOf(urls.check(url, 'test')) }).toEqual({
        url,
        reasons: [{ field: 'url', reason: 'FORBIDDEN_ADDRESS' }],
      });
    await expect(urls.check('http://shop.example.com/hook', 'test')).resolves.toBe(
      'http://shop.example.com/hook',
    );
    await expect(urls.check('http://nowhere.example.com/hook', 'test')).resolves.toBe(
      'http://nowhere.example.com/hook',
    );
    expect(await reasonOf(urls.check('ftp://files.example.com/', 'test'))).toEqual([
      { field: 'url', reason: 'INVALID_FORMAT_URL' },
    ]);
  });

  it('WEBHOOK_ALLOW_PRIVATE_TARGETS: local receivers in every mode, resolving nothing in test mode', async () => {
    const urls = policy({}, { allowPrivate: true });
    await expect(urls.check('http://127.0.0.1:4010/hook', 'test')).resolves.toBe(
      'http://127.0.0.1:4010/hook',
    );
    await expect(urls.check('http://localhost:4010/hook', 'test')).resolves.toBe(
      'http://localhost:4010/hook',
    );
    await expect(urls.check('https://[::1]:4010/hook', 'live')).resolves.toBe('https://[::1]:4010/hook');
  });

  it('WEBHOOK_ALLOWED_PRIVATE_TARGETS: exactly the listed address and port', async () => {
    const urls = policy({ 'receiver.example.com': ['10.0.4.7'] }, { allowed: ['10.0.4.7:8443'] });
    await expect(urls.check('https://10.0.4.7:8443/hook', 'live')).resolves.toBe(
      'https://10.0.4.7:8443/hook',
    );
    await expect(urls.check('https://receiver.example.com:8443/hook', 'live')).resolves.toBe(
      'https://receiver.example.com:8443/hook',
    );
    for (const url of [
      'https://10.0.4.7/hook',
      'https://10.0.4.8:8443/hook',
      'https://receiver.example.com/hook',
    ])
      expect(await reasonOf(urls.check(url, 'live'))).toEqual([
        { field: 'url', reason: 'FORBIDDEN_ADDRESS' },
      ]);
  });
});
