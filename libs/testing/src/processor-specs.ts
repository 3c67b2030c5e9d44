import { type IncomingHttpHeaders } from 'node:http';
import { CardNumber, SensitiveCardData } from '@kessai/cards';
import { startLocalServer } from './fake-server';

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
  const server = await startLocalServer((request, response, body) => {
    received.push({ headers: request.headers, body });
    response.writeHead(statuses.shift() ?? 200).end();
  });
  return {
    url: `http://127.0.0.1:${server.port}/callbacks`,
    received,
    close: () => server.close(),
  };
}
