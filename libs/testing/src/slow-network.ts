import { createServer, request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * The processor's network, slow: a proxy in front of the simulator that passes a request on after
 * 0–50 ms and holds the simulator's answer another 200–300 ms. The simulator's own latency would
 * not do here: it waits before reading the request, and drops it when the caller hangs up in
 * between, so a killed worker's calls would never have been carried out. Through the proxy, as
 * with a real processor, a call that arrived is carried out whether or not its caller still
 * listens: a worker killed while an answer is held has charged or refunded at the processor
 * without knowing. The crash tests put it between their workers and the simulator.
 */
export class SlowNetwork {
  /** answers the simulator gave that the caller has not received yet */
  held = 0;
  readonly #server = createServer((incoming, outgoing) => this.#relay(incoming, outgoing));
  #url = '';

  private constructor(private readonly target: string) {}

  static async start(target: string): Promise<SlowNetwork> {
    const network = new SlowNetwork(target);
    await new Promise<void>((resolve) => network.#server.listen(0, '127.0.0.1', resolve));
    network.#url = `http://127.0.0.1:${(network.#server.address() as AddressInfo).port}`;
    return network;
  }

  get url(): string {
    return this.#url;
  }

  close(): Promise<void> {
    this.#server.closeAllConnections();
    return new Promise((resolve) => this.#server.close(() => resolve()));
  }

  #relay(incoming: IncomingMessage, outgoing: ServerResponse): void {
    const chunks: Buffer[] = [];
    incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
    incoming.on('end', () => {
      void pause(0, 50).then(() => {
        const forwarded = httpRequest(
          `${this.target}${incoming.url ?? '/'}`,
          { method: incoming.method, headers: { ...incoming.headers, host: new URL(this.target).host } },
          (answer) => {
            const body: Buffer[] = [];
            answer.on('data', (chunk: Buffer) => body.push(chunk));
            answer.on('end', () => {
              this.held++;
              void pause(200, 100).then(() => {
                this.held--;
                if (outgoing.destroyed) return;
                outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
                outgoing.end(Buffer.concat(body));
              });
            });
          },
        );
        forwarded.on('error', () => outgoing.destroy());
        forwarded.end(Buffer.concat(chunks));
      });
    });
  }
}

const pause = (from: number, spread: number) =>
  new Promise((resolve) => setTimeout(resolve, from + Math.random() * spread));
