import http from 'node:http';
import { Webhook as StandardWebhook } from 'standardwebhooks';

/**
 * bench:webhooks' floor request (issue 14): a bare signed POST with node:http on one keep-alive
 * Agent, signed with `standardwebhooks` as webhook-service's sender signs; resolves when the answer
 * has been read. bench:webhook-sender sets it beside WebhookSender.send.
 */
export function floorRequester(url: string, secret: string) {
  const agent = new http.Agent({ keepAlive: true });
  const signer = new StandardWebhook(secret);
  const post = (i: number, body: string) =>
    new Promise<void>((resolve, reject) => {
      const id = `msg_${i}`;
      const now = new Date();
      const request = http.request(url, {
        method: 'POST',
        agent,
        headers: {
          'content-type': 'application/json',
          'content-length': String(Buffer.byteLength(body)),
          'webhook-id': id,
          'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
          'webhook-signature': signer.sign(id, now, body),
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
