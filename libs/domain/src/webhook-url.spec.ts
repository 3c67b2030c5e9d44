import {
  addressClassOf,
  isPublicAddress,
  checkWebhookUrl,
  isAllowedWebhookTarget,
  PUBLIC_TARGETS_ONLY,
  webhookTargetPolicy,
} from './webhook-url';

describe('webhook address classification (ipaddr.js)', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['127.1.2.3', 'loopback'],
    ['10.0.0.5', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.1.1', 'private'],
    ['100.64.0.1', 'carrierGradeNat'],
    ['100.100.100.200', 'carrierGradeNat'], // Alibaba Cloud's metadata
    ['169.254.169.254', 'linkLocal'], // cloud metadata
    ['0.0.0.0', 'unspecified'],
    ['0.1.2.3', 'unspecified'],
    ['224.0.0.1', 'multicast'],
    ['239.255.255.250', 'multicast'],
    ['255.255.255.255', 'broadcast'],
    ['240.0.0.1', 'reserved'],
    ['192.0.0.8', 'reserved'],
    ['192.0.2.1', 'reserved'], // documentation
    ['198.18.0.1', 'reserved'], // benchmarking
    ['168.63.129.16', 'platform'], // Azure
    ['::1', 'loopback'],
    ['::', 'unspecified'],
    ['fe80::1', 'linkLocal'],
    ['fc00::1', 'uniqueLocal'],
    ['fd00:ec2::254', 'uniqueLocal'], // AWS's metadata over IPv6
    ['ff02::1', 'multicast'],
    ['100::1', 'discard'],
    ['2001:db8::1', 'reserved'],
    ['fec0::1', 'deprecatedSiteLocal'],
    ['4000::1', 'notGlobal'], // outside 2000::/3
    ['[::1]', 'loopback'],
    // IPv4-mapped and the well-known NAT64 prefix: judged as the IPv4 address they carry
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:7f00:1', 'loopback'],
    ['::ffff:a9fe:a9fe', 'linkLocal'],
    ['::ffff:10.1.2.3', 'private'],
    ['64:ff9b::10.0.0.1', 'private'],
    ['64:ff9b::7f00:1', 'loopback'],
    // every other form carrying an IPv4 address is refused whatever it carries
    ['::127.0.0.1', 'embeddedIpv4'], // IPv4-compatible
    ['::7f00:1', 'embeddedIpv4'],
    ['::8.8.8.8', 'embeddedIpv4'],
    ['2002:7f00:1::', 'embeddedIpv4'], // 6to4 of 127.0.0.1
    ['2002:808:808::1', 'embeddedIpv4'], // 6to4 of a public address
    ['64:ff9b:1::7f00:1', 'embeddedIpv4'], // local-use NAT64
    ['64:ff9b:1:7f00:1::', 'embeddedIpv4'],
    ['2001:0:4136:e378:8000:63bf:80ff:fffe', 'embeddedIpv4'], // Teredo
    ['2001::1', 'embeddedIpv4'],
    ['::ffff:0:7f00:1', 'embeddedIpv4'], // SIIT (RFC 6145)
    // not an address as Node writes one: a URL is normalised before it is judged
    ['not-an-ip', 'invalid'],
    ['2130706433', 'invalid'],
    ['0177.0.0.1', 'invalid'],
    ['127.1', 'invalid'],
    ['0x7f.0.0.1', 'invalid'],
    ['', 'invalid'],
  ])('refuses %s (%s)', (address, kind) => {
    expect(addressClassOf(address)).toBe(kind);
    expect(isPublicAddress(address)).toBe(false);
  });

  it.each([
    '93.184.216.34',
    '8.8.8.8',
    '1.1.1.1',
    '172.32.0.1',
    '100.128.0.1',
    '2606:4700:4700::1111',
    '2a00:1450:4001:80b::200e',
    '::ffff:8.8.8.8',
    '64:ff9b::808:808', // DNS64's answer for 8.8.8.8
  ])('accepts %s', (address) => {
    expect(addressClassOf(address)).toBe('public');
    expect(isPublicAddress(address)).toBe(true);
  });
});

describe('the operator policy', () => {
  it('allows any address only with WEBHOOK_ALLOW_PRIVATE_TARGETS, and never a non-address', () => {
    const anything = webhookTargetPolicy(true, []);
    expect(isAllowedWebhookTarget('127.0.0.1', 80, anything)).toBe(true);
    expect(isAllowedWebhookTarget('169.254.169.254', 80, anything)).toBe(true);
    expect(isAllowedWebhookTarget('localhost', 80, anything)).toBe(false);
    expect(isAllowedWebhookTarget('127.0.0.1', 80, PUBLIC_TARGETS_ONLY)).toBe(false);
    expect(isAllowedWebhookTarget('8.8.8.8', 80, PUBLIC_TARGETS_ONLY)).toBe(true);
  });

  it('allows a listed target at exactly its address and port, IPv6 in any spelling', () => {
    const listed = webhookTargetPolicy(false, ['127.0.0.1:23199', '[0:0:0:0:0:0:0:1]:8443']);
    expect(isAllowedWebhookTarget('127.0.0.1', 23199, listed)).toBe(true);
    expect(isAllowedWebhookTarget('127.0.0.1', 23198, listed)).toBe(false);
    expect(isAllowedWebhookTarget('127.0.0.2', 23199, listed)).toBe(false);
    expect(isAllowedWebhookTarget('::1', 8443, listed)).toBe(true);
    expect(isAllowedWebhookTarget('[::1]', 8443, listed)).toBe(true);
    expect(() => webhookTargetPolicy(false, ['localhost:80'])).toThrow();
  });
});

describe('webhook URL rules', () => {
  const refusal = (url: string, mode: 'test' | 'live', policy = PUBLIC_TARGETS_ONLY) => {
    const result = checkWebhookUrl(url, mode, policy);
    return 'refusal' in result ? result.refusal : null;
  };

  it.each(['test', 'live'] as const)('%s mode: no non-public address, however it is written', (mode) => {
    for (const url of [
      'https://127.0.0.1:8443/x',
      'https://127.1/x',
      'https://2130706433/x', // 127.0.0.1 as one number
      'https://0177.0.0.1/x', // octal
      'https://0x7f.0.0.1/x',
      'https://[::1]/x',
      'https://[::ffff:169.254.169.254]/x',
      'https://[::127.0.0.1]/x',
      'https://[2002:7f00:1::]/x',
      'https://[64:ff9b:1::7f00:1]/x',
      'https://localhost/x',
      'https://localhost./x',
      'https://metadata.google.internal/x',
    ])
      expect({ url, refusal: refusal(url, mode) }).toEqual({ url, refusal: 'FORBIDDEN_ADDRESS' });
    expect(refusal('https://hooks.example.com/kessai', mode)).toBeNull();
    expect(refusal('https://93.184.216.34/x', mode)).toBeNull();
  });

  it('https only in live mode; the same format rules in both', () => {
    expect(refusal('http://hooks.example.com/kessai', 'live')).toBe('HTTPS_REQUIRED');
    expect(refusal('http://hooks.example.com/kessai', 'test')).toBeNull();
    for (const mode of ['test', 'live'] as const) {
      expect(refusal('https://user:pass@hooks.example.com/x', mode)).toBe('INVALID_FORMAT_URL');
      expect(refusal('ftp://hooks.example.com/x', mode)).toBe('INVALID_FORMAT_URL');
      expect(refusal('hooks.example.com', mode)).toBe('INVALID_FORMAT_URL');
    }
  });

  it('the operator settings let local receivers through', () => {
    const anything = webhookTargetPolicy(true, []);
    expect(checkWebhookUrl('http://127.0.0.1:4010/hooks', 'test', anything)).toMatchObject({
      hostIsIp: true,
      port: 4010,
    });
    expect(checkWebhookUrl('http://localhost:4010/hooks', 'test', anything)).toMatchObject({
      hostIsIp: false,
    });
    const listed = webhookTargetPolicy(false, ['127.0.0.1:4010']);
    expect(refusal('http://127.0.0.1:4010/hooks', 'test', listed)).toBeNull();
    expect(refusal('http://2130706433:4010/hooks', 'test', listed)).toBeNull();
    expect(refusal('http://127.0.0.1/hooks', 'test', listed)).toBe('FORBIDDEN_ADDRESS');
    expect(refusal('http://localhost:4010/hooks', 'test', listed)).toBe('FORBIDDEN_ADDRESS');
  });
});
