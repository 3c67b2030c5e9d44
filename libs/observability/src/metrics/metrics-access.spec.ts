import { metricsAccessAllowed } from './metrics-access';

describe('metricsAccessAllowed', () => {
  it('lets every scrape in without a token', () => {
    expect(metricsAccessAllowed(undefined, undefined)).toBe(true);
    expect(metricsAccessAllowed('Bearer anything', undefined)).toBe(true);
  });

  it('with a token, lets in only Bearer <token>', () => {
    const token = 'scrape-token-0123456789';
    expect(metricsAccessAllowed(`Bearer ${token}`, token)).toBe(true);
    expect(metricsAccessAllowed(undefined, token)).toBe(false);
    expect(metricsAccessAllowed(token, token)).toBe(false);
    expect(metricsAccessAllowed(`Bearer ${token}x`, token)).toBe(false);
    expect(metricsAccessAllowed(`Basic ${token}`, token)).toBe(false);
    expect(metricsAccessAllowed([`Bearer ${token}`], token)).toBe(false);
  });
});
