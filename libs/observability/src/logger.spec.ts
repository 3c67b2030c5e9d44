import { Writable } from 'node:stream';
import { currentCorrelationId, withCorrelation } from './correlation';
import { createLogger } from './logger';

function capture() {
  const lines: string[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _enc, done) {
      lines.push(chunk.toString('utf8'));
      done();
    },
  });
  return { lines, destination };
}

describe('createLogger', () => {
  it('redacts credentials and card fields', () => {
    const { lines, destination } = capture();
    const logger = createLogger({ service: 'test', level: 'info', destination });
    logger.info(
      {
        req: { headers: { authorization: 'Bearer s3cret.a.b.c' } },
        body: { card_number: '4242424242424242', cvv: '123', data: { card_number: '4000000000000002' } },
        secret: 'plain-secret',
        bankAccount: { accountNumber: '76543210', ciphertext: 'c1phertext' },
        account_number: '12345678',
        login: { email: 'hanako@example.test', otp: '493817' },
        webhook: { signing_secret: 'whsec_one', auth_token: 'Bearer hook-token' },
        delivery: {
          signingSecret: 'whsec_two',
          previousSigningSecret: 'whsec_three',
          authToken: 'hook-token-2',
        },
        secretKey: 'sk_live_plain_one',
        account: { secretKey: 'sk_live_plain_two', webhookSecret: 'komoju-hook-one' },
        input: { secret_key: 'sk_live_plain_three', webhook_secret: 'komoju-hook-two' },
        processor: { credentials: { key: 'sk_live_plain_four' } },
      },
      'request',
    );
    const text = lines.join('');
    expect(text).toContain('"service":"test"');
    expect(text).toContain('[redacted]');
    for (const leaked of [
      '493817',
      's3cret',
      '4242424242424242',
      '4000000000000002',
      '"123"',
      'plain-secret',
      'whsec_',
      'hook-token',
      '76543210',
      '12345678',
      'c1phertext',
      'sk_live_plain',
      'komoju-hook',
    ]) {
      expect(text).not.toContain(leaked);
    }
  });
});

describe('correlation ids in log lines', () => {
  it('every line written within withCorrelation carries its id, awaited work included; others none', async () => {
    const { lines, destination } = capture();
    const logger = createLogger({ service: 'test', level: 'info', destination });
    logger.info('before');
    await withCorrelation('req-42', async () => {
      logger.info('inside');
      await new Promise((resolve) => setImmediate(resolve));
      expect(currentCorrelationId()).toBe('req-42');
      logger.info('after an await');
      withCorrelation('req-43', () => logger.info('nested'));
    });
    withCorrelation(null, () => logger.info('no id'));
    logger.info('outside');
    const parsed = lines.map((line) => JSON.parse(line) as { msg: string; correlationId?: string });
    expect(parsed.map((line) => [line.msg, line.correlationId])).toEqual([
      ['before', undefined],
      ['inside', 'req-42'],
      ['after an await', 'req-42'],
      ['nested', 'req-43'],
      ['no id', undefined],
      ['outside', undefined],
    ]);
  });
});
