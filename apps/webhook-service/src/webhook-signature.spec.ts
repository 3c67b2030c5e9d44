import { randomBytes, randomUUID } from 'node:crypto';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import type { DeliveryToSend } from '@kessai/db';
import { WebhookSender } from './webhook-sender';
import { signatureOf, signingKeyOf } from './webhook-signature';

const newSecret = () => `whsec_${randomBytes(32).toString('base64')}`;

/**
 * The signatures are the `standardwebhooks` package's, byte for byte: that package is what the
 * merchants' verifiers (and the node SDK's users) run.
 */
describe('webhook signatures', () => {
  const bodies = [
    '{}',
    JSON.stringify({ id: randomUUID(), event: 'charge_finished', data: { metadata: { 名前: 'テスト ✓' } } }),
    JSON.stringify({ padding: 'x'.repeat(5_000), emoji: '😀', escaped: '\ud800' }),
  ];

  it('are the ones standardwebhooks makes, for a string body and its bytes', () => {
    for (const body of bodies) {
      const secret = newSecret();
      const id = randomUUID();
      const timestamp = 1_700_000_000 + Math.floor(Math.random() * 100_000_000);
      const expected = new StandardWebhook(secret).sign(id, new Date(timestamp * 1_000), body);
      const key = signingKeyOf(secret);
      expect(signatureOf(key, id, timestamp, body)).toBe(expected);
      expect(signatureOf(key, id, timestamp, Buffer.from(body))).toBe(expected);
    }
  });

  it('are accepted by standardwebhooks verify, and refused for another secret or body', () => {
    const secret = newSecret();
    const id = randomUUID();
    const timestamp = Math.floor(Date.now() / 1_000);
    const body = bodies[1];
    const headers = {
      'webhook-id': id,
      'webhook-timestamp': String(timestamp),
      'webhook-signature': signatureOf(signingKeyOf(secret), id, timestamp, body),
    };
    expect(new StandardWebhook(secret).verify(body, headers)).toEqual(JSON.parse(body));
    expect(() => new StandardWebhook(newSecret()).verify(body, headers)).toThrow();
    expect(() => new StandardWebhook(secret).verify(`${body} `, headers)).toThrow();
  });

  it('take a key only from a secret that is base64 (whsec_ or not), never from an empty one', () => {
    const raw = randomBytes(32);
    expect(signingKeyOf(`whsec_${raw.toString('base64')}`).equals(raw)).toBe(true);
    expect(signingKeyOf(raw.toString('base64')).equals(raw)).toBe(true);
    for (const bad of ['whsec_', 'whsec_not base64!', 'whsec_abc'])
      expect(() => signingKeyOf(bad)).toThrow('not base64');
  });

  it('go out from WebhookSender verifiable by each secret during a rotation, and by the new one after it', async () => {
    const got: { headers: IncomingHttpHeaders; body: string }[] = [];
    const server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        got.push({ headers: request.headers, body: Buffer.concat(chunks).toString('utf8') });
        response.end('ok');
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const sender = new WebhookSender({
      WEBHOOK_TIMEOUT_MS: 5_000,
      WEBHOOK_ALLOW_PRIVATE_TARGETS: true,
      WEBHOOK_ALLOWED_PRIVATE_TARGETS: [],
    });
    try {
      const [previous, current] = [newSecret(), newSecret()];
      const delivery: DeliveryToSend = {
        id: randomUUID(),
        webhookId: randomUUID(),
        url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
        authToken: null,
        signingSecret: current,
        previousSigningSecret: previous,
        mode: 'test',
        webhookActive: true,
        status: 'pending',
        attemptCount: 0,
        body: bodies[1],
      };
      await expect(sender.send(delivery)).resolves.toMatchObject({ statusCode: 200, error: null });
      // the overlap over: the row no longer names the previous secret
      await expect(sender.send({ ...delivery, previousSigningSecret: null })).resolves.toMatchObject({
        statusCode: 200,
      });
      const verify = (secret: string, { headers, body }: (typeof got)[number]) =>
        new StandardWebhook(secret).verify(body, headers as Record<string, string>);
      expect(got).toHaveLength(2);
      expect(got[0].body).toBe(bodies[1]);
      expect(String(got[0].headers['webhook-signature']).split(' ')).toHaveLength(2);
      expect(verify(current, got[0])).toEqual(JSON.parse(bodies[1]));
      expect(verify(previous, got[0])).toEqual(JSON.parse(bodies[1]));
      expect(verify(current, got[1])).toEqual(JSON.parse(bodies[1]));
      expect(() => verify(previous, got[1])).toThrow();
    } finally {
      sender.onModuleDestroy();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
