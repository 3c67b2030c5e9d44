import http from 'node:http';
import { signatureOf, signingKeyOf } from '../apps/webhook-service/src/webhook-signature';

/**
 * bench:webhooks' floor request (issue 14): a bare signed POST with node:http on one keep-alive
 * Agent, signed by the code webhook-service's sender signs with (Standard Webhooks, node:crypto's
 * HMAC); resolves when the answer has been read. bench:webhook-sender sets it beside
 * WebhookSender.send.
 */
export function floorRequester(url: string, secret: string) {
  const agent = new http.Agent({ keepAlive: true });
  const key = signingKeyOf(secret);
  const post = (i: number, body: string) =>
    new Promise<void>((resolve, reject) => {
      const id = `msg_${i}`;
      const timestamp = Math.floor(Date.now() / 1000);
      const request = http.request(url, {
        method: 'POST',
        agent,
        headers: {
          'content-type': 'application/json',
          'content-length': String(Buffer.byteLength(body)),
          'webhook-id': id,
          'webhook-timestamp': String(timestamp),
          'webhook-signature': signatureOf(key, id, timestamp, body),
        },
      });
      request.on('response', (response) => {
        response.resume();
        response.on('end', resolve);
      });
      request.on('error', reject);
      request.end(body);
    });
  return { post, close: () => agent.destroy() };
}
