/**
 * The smoke test of a running compose deployment (`npm run test:compose` runs it), through the
 * official univapay-node SDK with the bootstrap's demo credentials, alternating between the gateways
 * given:
 *   a card token → a charge → successful; a partial refund → successful; a subscription → its first
 *   charge successful and the subscription current; a signed webhook for each (charge_finished,
 *   refund_finished, subscription_payment) received by a receiver on this machine; then
 *   BURST charges, each sent with one Idempotency-Key to every gateway at once: one charge per key,
 *   every one successful, with its charge_finished webhook; then, given SMOKE_CONSOLE_URLS, the
 *   demo user signed in on the first console and the first charge's page on every console.
 *
 *   [SMOKE_RECEIVER_HOST=<address>] TS_NODE_TRANSPILE_ONLY=1 node -r ts-node/register \
 *     -r tsconfig-paths/register test/compose-smoke.ts <credentials.json> <gateway URL>...
 *
 * Exits 0 when every step passed, 1 with the failing step otherwise.
 */
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import SDK, {
  ChargeStatus,
  RefundStatus,
  SubscriptionPeriod,
  SubscriptionStatus,
  WebHookTrigger,
  type WebHookItem,
} from 'univapay-node';
import type { DemoCredentials } from '../libs/admin/src/bootstrap';
import { sdkCardToken } from '../libs/testing/src/sdk';
import { verifiedWebhook, WebhookReceiver } from '../libs/testing/src/webhook-receiver';

const WAIT_MS = 60_000;
const BURST = 20;

async function main() {
  const [credentialsFile, ...gatewayUrls] = process.argv.slice(2);
  if (!credentialsFile || gatewayUrls.length === 0) {
    throw new Error('usage: compose-smoke.ts <credentials.json> <gateway URL>...');
  }
  const credentials = JSON.parse(readFileSync(credentialsFile, 'utf8')) as DemoCredentials;
  const storeId = credentials.store_id;
  // one client per gateway; each step alternates between them
  const sdks = gatewayUrls.map(
    (endpoint) => new SDK({ endpoint, jwt: credentials.jwt, secret: credentials.secret }),
  );
  const sdk = (step: number) => sdks[step % sdks.length];
  const started = performance.now();
  const log = (line: string) =>
    process.stdout.write(
      `smoke: ${((performance.now() - started) / 1000).toFixed(1).padStart(5)}s ${line}\n`,
    );

  // the merchant's webhook endpoint, on this machine where the deployment reaches it (loopback
  // under host networking; the compose network's gateway address on a bridge network)
  const receiver = new WebhookReceiver();
  // on the port the deployment's WEBHOOK_ALLOWED_PRIVATE_TARGETS names (scripts/test-compose.sh):
  // a private address is no webhook target otherwise
  await receiver.start(
    process.env.SMOKE_RECEIVER_HOST ?? '127.0.0.1',
    Number(process.env.SMOKE_RECEIVER_PORT ?? 0),
  );
  try {
    // Kessai answers a webhook's signing secret beside the SDK's fields (docs/webhooks.md)
    const hook = (await sdk(0).webHooks.create(
      {
        triggers: [
          WebHookTrigger.CHARGE_FINISHED,
          WebHookTrigger.REFUND_FINISHED,
          WebHookTrigger.SUBSCRIPTION_PAYMENT,
        ],
        url: `${receiver.url}/hooks`,
      },
      undefined,
      storeId,
    )) as WebHookItem & { signingSecret: string };
    log(`webhook ${hook.id} → ${receiver.url}/hooks`);

    const token = await sdkCardToken(sdk(0));
    log(`token   ${token.id} (${gatewayUrls[0]})`);
    const created = await sdk(0).charges.create({
      transactionTokenId: token.id,
      amount: 1200,
      currency: 'JPY',
    });
    log(`charge  ${created.id} ${created.status}`);
    const charge = await sdk(1).charges.poll(storeId, created.id);
    log(`charge  ${charge.id} ${charge.status} (polled on ${gatewayUrls[1 % gatewayUrls.length]})`);
    if (charge.status !== ChargeStatus.SUCCESSFUL) {
      throw new Error(`the charge ended ${charge.status}: ${JSON.stringify(charge.error)}`);
    }
    const chargeHook = await receiver.waitFor('/hooks', 'charge_finished', charge.id, 1, WAIT_MS);
    const chargeEvent = verifiedWebhook(hook.signingSecret, chargeHook[0]);
    if (chargeEvent.data.status !== 'successful')
      throw new Error(`charge_finished said ${String(chargeEvent.data.status)}`);
    log(`webhook charge_finished ${chargeEvent.id} (signature verified)`);

    const requested = await sdk(1).refunds.create(storeId, charge.id, { amount: 500, currency: 'JPY' });
    const refund = await sdk(0).refunds.poll(storeId, charge.id, requested.id);
    log(`refund  ${refund.id} ${refund.status} ${refund.amount} ${refund.currency}`);
    if (refund.status !== RefundStatus.SUCCESSFUL) {
      throw new Error(`the refund ended ${refund.status}: ${JSON.stringify(refund.error)}`);
    }
    const refundHook = await receiver.waitFor('/hooks', 'refund_finished', refund.id, 1, WAIT_MS);
    log(
      `webhook refund_finished ${verifiedWebhook(hook.signingSecret, refundHook[0]).id} (signature verified)`,
    );

    const recurring = await sdkCardToken(sdk(0), { type: 'recurring' });
    const subscription = await sdk(0).subscriptions.create({
      transactionTokenId: recurring.id,
      amount: 1000,
      currency: 'JPY',
      period: SubscriptionPeriod.MONTHLY,
    });
    log(`subscription ${subscription.id} ${subscription.status}`);
    const first = await sdk(1).subscriptions.pollSubscriptionWithFirstCharge(storeId, subscription.id);
    if (!first.charge) throw new Error(`subscription ${subscription.id} has no first charge`);
    log(
      `subscription ${first.subscription.id} ${first.subscription.status}, first charge ${first.charge.id} ${first.charge.status}`,
    );
    if (
      first.charge.status !== ChargeStatus.SUCCESSFUL ||
      first.subscription.status !== SubscriptionStatus.CURRENT
    ) {
      throw new Error(
        `the subscription is ${first.subscription.status}, its first charge ${first.charge.status}`,
      );
    }
    const paymentHook = await receiver.waitFor('/hooks', 'subscription_payment', subscription.id, 1, WAIT_MS);
    log(
      `webhook subscription_payment ${verifiedWebhook(hook.signingSecret, paymentHook[0]).id} (signature verified)`,
    );
    await sameKeyOnEveryGateway(sdks, storeId, receiver, log);
    const consoles = (process.env.SMOKE_CONSOLE_URLS ?? '').split(',').filter((url) => url !== '');
    if (consoles.length > 0) await consoleShowsPayment(consoles, credentials, charge.id, log);
    log('passed');
  } finally {
    await receiver.close();
  }
}

/**
 * The merchant console: the demo user signs in on the first replica (its sign-in form, CSRF token
 * and nonce cookie), and the session cookie opens the payment `chargeId`'s page on every replica
 * (sessions live in Postgres, the cookie is signed with the one CONSOLE_SESSION_SECRET).
 */
async function consoleShowsPayment(
  consoles: string[],
  credentials: DemoCredentials,
  chargeId: string,
  log: (line: string) => void,
) {
  const cookiesOf = (response: Response) =>
    response.headers
      .getSetCookie()
      .map((cookie) => cookie.split(';')[0])
      .join('; ');
  if (credentials.user_password === null) {
    throw new Error(
      `the demo user ${credentials.user_email} was removed: the console cannot be signed in to`,
    );
  }
  const form = await fetch(`${consoles[0]}/sign-in`);
  const csrf = /name="_csrf" value="([^"]+)"/.exec(await form.text())?.[1];
  if (form.status !== 200 || !csrf) throw new Error(`the console's sign-in page answered ${form.status}`);
  const signedIn = await fetch(`${consoles[0]}/sign-in`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: cookiesOf(form) },
    body: new URLSearchParams({
      _csrf: csrf,
      email: credentials.user_email,
      password: credentials.user_password,
    }).toString(),
  });
  const session = cookiesOf(signedIn);
  if (signedIn.status !== 303 || !session.includes('kessai_console_session=')) {
    throw new Error(`signing in on the console answered ${signedIn.status}`);
  }
  log(`console signed in as ${credentials.user_email} (${consoles[0]})`);
  for (const base of consoles) {
    const page = await fetch(`${base}/payments/${chargeId}`, {
      headers: { cookie: session },
      redirect: 'manual',
    });
    const text = await page.text();
    if (page.status !== 200 || !text.includes(chargeId)) {
      throw new Error(
        `the console's payment page on ${base} answered ${page.status} without charge ${chargeId}`,
      );
    }
    log(`console payment page shows charge ${chargeId} (${base})`);
  }
}

/**
 * BURST charges at once, each POSTed under one Idempotency-Key to every gateway at the same time:
 * the replicas race for each key, and exactly one creates the charge — the others answer it again
 * or, while it runs, 409 REQUEST_IN_PROGRESS (then asked again until they answer it).
 */
async function sameKeyOnEveryGateway(
  sdks: SDK[],
  storeId: string,
  receiver: WebhookReceiver,
  log: (line: string) => void,
) {
  // a 503 SERVICE_UNAVAILABLE_TRY_AGAIN (the rate limiter's Redis slower than its timeout under
  // this burst on a loaded machine: it fails closed) is asked again, as the error says; under the
  // same Idempotency-Key that can never make a second charge
  const answersWith = (code: string) => (error: unknown) =>
    typeof error === 'object' &&
    error !== null &&
    'errorResponse' in error &&
    JSON.stringify(error.errorResponse).includes(code);
  const tryAgain = answersWith('SERVICE_UNAVAILABLE_TRY_AGAIN');
  const inProgress = answersWith('IDEMPOTENCY_KEY_CONFLICT');
  async function askUntil<T>(call: () => Promise<T>, retry: (error: unknown) => boolean): Promise<T> {
    for (let tries = 0; ; tries++) {
      try {
        return await call();
      } catch (error) {
        if (!retry(error) || tries >= 50) throw error;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
  }
  const tokens = await Promise.all(
    Array.from({ length: BURST }, (_, i) => askUntil(() => sdkCardToken(sdks[i % sdks.length]), tryAgain)),
  );
  const created = await Promise.all(
    tokens.map(async (token, i) => {
      const key = `smoke-${token.id}`;
      const answers = await Promise.all(
        sdks.map((client) =>
          askUntil(
            () =>
              client.charges.create(
                { transactionTokenId: token.id, amount: 100 + i, currency: 'JPY' },
                { idempotentKey: key },
              ),
            (error) => inProgress(error) || tryAgain(error),
          ),
        ),
      );
      const ids = new Set(answers.map((answer) => answer.id));
      if (ids.size !== 1) throw new Error(`key ${key} made ${ids.size} charges: ${[...ids].join(', ')}`);
      return answers[0];
    }),
  );
  const distinct = new Set(created.map((charge) => charge.id));
  if (distinct.size !== BURST) throw new Error(`${BURST} keys made ${distinct.size} charges`);
  const final = await Promise.all(
    created.map((charge, i) =>
      askUntil(() => sdks[(i + 1) % sdks.length].charges.poll(storeId, charge.id), tryAgain),
    ),
  );
  const unsuccessful = final.filter((charge) => charge.status !== ChargeStatus.SUCCESSFUL);
  if (unsuccessful.length > 0) {
    throw new Error(
      `${unsuccessful.length} burst charges ended ${unsuccessful.map((c) => c.status).join(', ')}`,
    );
  }
  await Promise.all(
    created.map((charge) => receiver.waitFor('/hooks', 'charge_finished', charge.id, 1, WAIT_MS)),
  );
  log(
    `burst   ${BURST} charges, each key sent to ${sdks.length} gateways at once: one charge per key, all successful, each with its charge_finished`,
  );
}

main().catch((error: unknown) => {
  process.stderr.write(
    `smoke: FAILED: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  if (error && typeof error === 'object' && 'errorResponse' in error) {
    process.stderr.write(`smoke: error response ${JSON.stringify(error.errorResponse)}\n`);
  }
  process.exit(1);
});
