/**
 * What webhook-service's HTTP client costs next to bench:webhooks' floor (issue 14): the floor's bare
 * signed POST and WebhookSender.send (signing, Authorization, timeouts, the answer's snippet), each
 * `BENCH_REQUESTS` (20,000) requests at `BENCH_CONCURRENCY` (64) to a keep-alive receiver in this
 * process, alternated `BENCH_ROUNDS` (3) times. CPU per request is this process's (client and
 * receiver together), from process.cpuUsage.
 *
 *   npm run bench:webhook-sender
 */
import 'reflect-metadata';
import { randomBytes, randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { DeliveryToSend } from '@kessai/db';
import { WebhookSender } from '../apps/webhook-service/src/webhook-sender';
import { floorRequester } from './webhook-floor';
import { num } from './settings';

const REQUESTS = num('BENCH_REQUESTS', 20_000);
const CONCURRENCY = num('BENCH_CONCURRENCY', 64);
const ROUNDS = num('BENCH_ROUNDS', 3);

// a body of a charge_finished delivery's size (~1.7 kB)
const body = JSON.stringify({
  id: randomUUID(),
  event: 'charge_finished',
  data: { id: randomUUID(), padding: 'x'.repeat(1_500) },
  created_on: new Date().toISOString(),
});
const secret = `whsec_${randomBytes(32).toString('base64')}`;

async function measure(name: string, one: (i: number) => Promise<void>) {
  let next = 0;
  const cpuBefore = process.cpuUsage();
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      for (let i = next++; i < REQUESTS; i = next++) await one(i);
    }),
  );
  const seconds = (performance.now() - started) / 1_000;
  const cpu = process.cpuUsage(cpuBefore);
  console.log(
    `| ${name} | ${Math.round(REQUESTS / seconds)} | ${((cpu.user + cpu.system) / REQUESTS).toFixed(1)} |`,
  );
}

async function main() {
  const server = http.createServer((request, response) => {
    request.resume();
    request.on('end', () => response.end('ok'));
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;

  // the floor of bench:webhooks, as it is there
  const requester = floorRequester(url, secret);
  const floor = (i: number) => requester.post(i, body);

  // the receiver is on loopback: a development setting (decision 0024)
  const sender = new WebhookSender({
    WEBHOOK_TIMEOUT_MS: 15_000,
    WEBHOOK_ALLOW_PRIVATE_TARGETS: true,
    WEBHOOK_ALLOWED_PRIVATE_TARGETS: [],
  });
  const delivery: DeliveryToSend = {
    id: randomUUID(),
    webhookId: randomUUID(),
    status: 'pending',
    attemptCount: 0,
    body,
    url,
    authToken: 'bench-token',
    signingSecret: secret,
    previousSigningSecret: null,
    mode: 'test',
    webhookActive: true,
  };
  const send = async () => {
    const result = await sender.send(delivery);
    if (result.error !== null) throw new Error(result.error);
  };

  console.log(`\n${REQUESTS} requests per run, ${CONCURRENCY} at a time, receiver in this process\n`);
  console.log('| client | requests/s | CPU µs per request (client + receiver) |');
  console.log('|---|---|---|');
  for (let round = 0; round < ROUNDS; round++) {
    await measure('floor (bare signed POST)', floor);
    await measure('WebhookSender.send', send);
  }
  server.closeAllConnections();
  server.close();
  requester.close();
  sender.onModuleDestroy();
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
