import { createServer, type AddressInfo, type Server } from 'node:net';
import type { AppConfig } from '@kessai/config';
import type { DeliveryToSend } from '@kessai/db';
import { TRY_FAILURES, WebhookSender } from './webhook-sender';

/**
 * One try against loopback listeners (nothing leaves the machine): a refused target gets no
 * connection, a failure is a result with a generic reason, never a throw or the socket's text.
 */
describe('WebhookSender', () => {
  const senders: WebhookSender[] = [];
  const servers: Server[] = [];
  const connections: number[] = [];

  const sender = (settings: Partial<AppConfig> = {}) => {
    const made = new WebhookSender({
      WEBHOOK_TIMEOUT_MS: 1_000,
      WEBHOOK_ALLOW_PRIVATE_TARGETS: false,
      WEBHOOK_ALLOWED_PRIVATE_TARGETS: [],
      ...settings,
    });
    senders.push(made);
    return made;
  };
  const delivery = (url: string, authToken: string | null = null): DeliveryToSend => ({
    id: '00000000-0000-4000-8000-000000000001',
    webhookId: '00000000-0000-4000-8000-000000000002',
    url,
    authToken,
    signingSecret: `whsec_${Buffer.alloc(32, 1).toString('base64')}`,
    previousSigningSecret: null,
    mode: 'test',
    webhookActive: true,
    status: 'pending',
    attemptCount: 0,
    body: '{}',
  });
  /** a loopback listener that counts connections and never answers */
  const listener = async () => {
    const index = connections.push(0) - 1;
    const server = createServer((socket) => {
      connections[index] += 1;
      socket.destroy();
    });
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return { port: (server.address() as AddressInfo).port, connections: () => connections[index] };
  };

  afterAll(async () => {
    for (const made of senders) made.onModuleDestroy();
    for (const server of servers) await new Promise((resolve) => server.close(resolve));
  });

  it('refuses a loopback target in test mode, by IP or by name, without connecting', async () => {
    const { port, connections: made } = await listener();
    for (const url of [
      `http://127.0.0.1:${port}/`,
      `http://2130706433:${port}/`,
      `http://[::ffff:127.0.0.1]:${port}/`,
      `http://localhost:${port}/`,
    ])
      expect({ url, result: await sender().send(delivery(url)) }).toMatchObject({
        url,
        result: { statusCode: null, error: TRY_FAILURES.targetNotAllowed, responseSnippet: null },
      });
    expect(made()).toBe(0);
  });

  it('records a failed connection with a generic reason, its cause for the operator only', async () => {
    const { port } = await listener();
    const result = await sender({ WEBHOOK_ALLOWED_PRIVATE_TARGETS: [`127.0.0.1:${port}`] }).send(
      delivery(`http://127.0.0.1:${port}/`),
    );
    expect(result).toMatchObject({
      statusCode: null,
      error: TRY_FAILURES.connectionFailed,
      responseSnippet: null,
    });
    expect(result.cause).toMatch(/ECONNRESET|socket hang up/);
  });

  it('resolves a try whose request cannot be made (a header Node refuses) instead of throwing', async () => {
    const { port, connections: made } = await listener();
    const send = sender({ WEBHOOK_ALLOW_PRIVATE_TARGETS: true });
    for (const token of ['tok\u0001en', 'トークン'])
      await expect(send.send(delivery(`http://127.0.0.1:${port}/`, token))).resolves.toMatchObject({
        statusCode: null,
        error: TRY_FAILURES.notSent,
      });
    expect(made()).toBe(0);
  });
});
