import { DashboardCredentials } from './dashboard-credentials';

const basic = (pair: string) => `Basic ${Buffer.from(pair, 'utf8').toString('base64')}`;

describe('DashboardCredentials', () => {
  const credentials = new DashboardCredentials('ops', 'correct horse battery staple');

  it('allows the user name and password, the scheme in any case', () => {
    expect(credentials.allows(basic('ops:correct horse battery staple'))).toBe(true);
    expect(credentials.allows(basic('ops:correct horse battery staple').replace('Basic', 'basic'))).toBe(
      true,
    );
  });

  it('refuses a wrong part, a missing one, another scheme and a malformed header', () => {
    expect(credentials.allows(undefined)).toBe(false);
    expect(credentials.allows(basic('ops:correct horse battery stapler'))).toBe(false);
    expect(credentials.allows(basic('admin:correct horse battery staple'))).toBe(false);
    expect(credentials.allows(basic('ops'))).toBe(false);
    expect(credentials.allows(basic(':correct horse battery staple'))).toBe(false);
    expect(credentials.allows('Bearer correct horse battery staple')).toBe(false);
    expect(credentials.allows('Basic not base64!')).toBe(false);
    expect(credentials.allows([basic('ops:correct horse battery staple')])).toBe(false);
  });

  it('keeps a colon inside the password, as RFC 7617 splits at the first one', () => {
    const colon = new DashboardCredentials('ops', 'pass:with:colons-0123');
    expect(colon.allows(basic('ops:pass:with:colons-0123'))).toBe(true);
  });
});
