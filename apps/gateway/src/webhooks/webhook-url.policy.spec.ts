import { ValidationError } from '@kessai/domain';
import { WebhookUrlPolicy } from './webhook-url.policy';

/** The URL rules with a fake resolver: what live mode does with the addresses a name resolves to. */
describe('WebhookUrlPolicy', () => {
  const policy = (addresses: Record<string, string[]>) => {
    const checked = new WebhookUrlPolicy();
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

  it('test mode: resolves nothing and takes local receivers', async () => {
    const urls = policy({});
    await expect(urls.check('http://127.0.0.1:4010/hook', 'test')).resolves.toBe(
      'http://127.0.0.1:4010/hook',
    );
    await expect(urls.check('http://rebind.example.com/hook', 'test')).resolves.toBe(
      'http://rebind.example.com/hook',
    );
    expect(await reasonOf(urls.check('ftp://files.example.com/', 'test'))).toEqual([
      { field: 'url', reason: 'INVALID_FORMAT_URL' },
    ]);
  });
});
