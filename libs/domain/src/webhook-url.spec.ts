import { checkWebhookUrl, isForbiddenWebhookAddress } from './webhook-url';

describe('webhook URL rules', () => {
  it.each([
    '127.0.0.1',
    '127.1.2.3',
    '10.0.0.5',
    '172.16.0.1',
    '172.31.255.255',
    '192.168.1.1',
    '100.64.0.1',
    '100.100.100.200',
    '169.254.169.254',
    '0.0.0.0',
    '224.0.0.1',
    '255.255.255.255',
    '168.63.129.16',
    '::1',
    '::',
    'fe80::1',
    'fd00:ec2::254',
    'fc00::1',
    'ff02::1',
    '::ffff:127.0.0.1',
    '::ffff:7f00:1',
    '::ffff:a9fe:a9fe',
    '64:ff9b::10.0.0.1',
    '[::1]',
    'not-an-ip',
  ])('refuses %s', (address) => {
    expect(isForbiddenWebhookAddress(address)).toBe(true);
  });

  it.each([
    '93.184.216.34',
    '8.8.8.8',
    '172.32.0.1',
    '100.128.0.1',
    '2606:4700:4700::1111',
    '::ffff:8.8.8.8',
  ])('accepts %s', (address) => {
    expect(isForbiddenWebhookAddress(address)).toBe(false);
  });

  it('live mode: https only, no forbidden address or local name as the host', () => {
    const refusal = (url: string) => {
      const result = checkWebhookUrl(url, 'live');
      return 'refusal' in result ? result.refusal : null;
    };
    expect(refusal('https://hooks.example.com/kessai')).toBeNull();
    expect(refusal('https://93.184.216.34/x')).toBeNull();
    expect(refusal('http://hooks.example.com/kessai')).toBe('HTTPS_REQUIRED');
    expect(refusal('https://127.0.0.1:8443/x')).toBe('FORBIDDEN_ADDRESS');
    expect(refusal('https://2130706433/x')).toBe('FORBIDDEN_ADDRESS'); // 127.0.0.1 as one number
    expect(refusal('https://0x7f.0.0.1/x')).toBe('FORBIDDEN_ADDRESS');
    expect(refusal('https://[::ffff:169.254.169.254]/x')).toBe('FORBIDDEN_ADDRESS');
    expect(refusal('https://localhost/x')).toBe('FORBIDDEN_ADDRESS');
    expect(refusal('https://metadata.google.internal/x')).toBe('FORBIDDEN_ADDRESS');
    expect(refusal('https://user:pass@hooks.example.com/x')).toBe('INVALID_FORMAT_URL');
    expect(refusal('ftp://hooks.example.com/x')).toBe('INVALID_FORMAT_URL');
    expect(refusal('hooks.example.com')).toBe('INVALID_FORMAT_URL');
  });

  it('test mode: local receivers over http are allowed', () => {
    expect(checkWebhookUrl('http://127.0.0.1:4010/hooks', 'test')).toMatchObject({ hostIsIp: true });
    expect(checkWebhookUrl('http://localhost:4010/hooks', 'test')).toMatchObject({ hostIsIp: false });
  });
});
