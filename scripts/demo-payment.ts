/**
 * The quick start's whole payment through the official univapay-node SDK, with the demo credentials
 * `npm start` printed: a card token, a charge on it, polled until it is final, then a partial refund
 * of it, polled until refund-cancel-service has carried it out.
 *
 *   npm run demo:payment [-- <credentials.json>]     (default: .kessai/demo-credentials.json)
 *
 * The demo merchant is a test-mode sandbox marked PCI DSS compliant, so it may send card data with
 * its secret; the card is a test card of the simulator (docs/processor-simulator.md) that succeeds.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import SDK, {
  ChargeStatus,
  PaymentType,
  RefundReason,
  RefundStatus,
  TransactionTokenType,
} from 'univapay-node';

/** What the demo needs of .kessai/demo-credentials.json (the bootstrap's DemoCredentials). */
export interface DemoPaymentCredentials {
  base_url: string;
  store_id: string;
  jwt: string;
  secret: string;
}

export async function runDemoPayment(
  credentials: DemoPaymentCredentials,
  log: (line: string) => void = (line) => process.stdout.write(`${line}\n`),
) {
  const sdk = new SDK({ endpoint: credentials.base_url, jwt: credentials.jwt, secret: credentials.secret });

  const token = await sdk.transactionTokens.create({
    paymentType: PaymentType.CARD,
    type: TransactionTokenType.ONE_TIME,
    email: 'buyer@example.com',
    data: {
      cardholder: 'Taro Yamada',
      cardNumber: '4000056655665556',
      expMonth: 12,
      expYear: new Date().getUTCFullYear() + 1,
      cvv: '123',
    },
  });
  log(`token   ${token.id}  ${token.paymentType} ${token.mode}`);

  const created = await sdk.charges.create({
    transactionTokenId: token.id,
    amount: 1000,
    currency: 'JPY',
    metadata: { order_id: 'demo-1' },
  });
  log(`charge  ${created.id}  ${created.status}`);

  // GET …?polling=true until the charge leaves `pending` (charge-service asks the processor)
  const charge = await sdk.charges.poll(credentials.store_id, created.id);
  log(`charge  ${charge.id}  ${charge.status}  ${charge.chargedAmountFormatted} ${charge.chargedCurrency}`);
  if (charge.status !== ChargeStatus.SUCCESSFUL) {
    throw new Error(`the charge ended ${charge.status}: ${JSON.stringify(charge.error)}`);
  }

  // a partial refund: 201 pending, then refund-cancel-service refunds it at the processor
  const requested = await sdk.refunds.create(credentials.store_id, charge.id, {
    amount: 400,
    currency: 'JPY',
    reason: RefundReason.CUSTOMER_REQUEST,
  });
  const refund = await sdk.refunds.poll(credentials.store_id, charge.id, requested.id);
  log(`refund  ${refund.id}  ${refund.status}  ${refund.amountFormatted} ${refund.currency}`);
  if (refund.status !== RefundStatus.SUCCESSFUL) {
    throw new Error(`the refund ended ${refund.status}: ${JSON.stringify(refund.error)}`);
  }

  return { token, charge, refund };
}

if (require.main === module) {
  const file = resolve(process.argv[2] ?? '.kessai/demo-credentials.json');
  const credentials = JSON.parse(readFileSync(file, 'utf8')) as DemoPaymentCredentials;
  runDemoPayment(credentials).catch((error: unknown) => {
    process.stderr.write(`demo payment failed: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  });
}
