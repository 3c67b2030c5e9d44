import { createServer, type IncomingHttpHeaders } from 'node:http';
import { type AddressInfo } from 'node:net';
import { CardNumber, SensitiveCardData } from '@kessai/cards';

// Helpers for the specs of the processor adapter (libs/processor) and of the simulator
// (apps/processor-simulator): card data, an endpoint that receives callbacks, polling.

export function cardWith(
  number: string,
  overrides: { cvv?: string | null; expMonth?: number; expYear?: number } = {},
) {
  return new SensitiveCardData({
    cardNumber: CardNumber.fromDigits(number),
    cvv:
      overrides.cvv === undefined
        ? number.startsWith('3') && number.length === 15
          ? '1234'
          : '123'
        : overrides.cvv,
    expMonth: overrides.expMonth ?? 12,
    expYear: overrides.expYear ?? new Date().getUTCFullYear() + 3,
    cardholder: 'Taro Yamada',
  });
}

export async function waitFor(
  condition: () => boolean,
  timeoutMs = 2_000,
  what = 'condition',
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

export interface ReceivedCallback {
  headers: IncomingHttpHeaders;
  body: string;
}

/** An HTTP server standing in for our callback endpoint; answers with the given statuses in turn, then 200. */
export async function startCallbackReceiver(statuses: number[] = []) {
  const received: ReceivedCallback[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      received.push({ headers: request.headers, body: Buffer.concat(chunks).toString('utf8') });
      response.writeHead(statuses.shift() ?? 200).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/callbacks`,
    received,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
