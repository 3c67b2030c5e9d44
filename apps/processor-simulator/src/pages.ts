import { escapeHtml } from './http-io';
import { type SimulatedPayment } from './simulator-state';

function page(title: string, body: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<style>
body{font-family:system-ui,sans-serif;max-width:28rem;margin:3rem auto;padding:0 1rem;color:#222}
.amount{font-size:2rem;margin:1rem 0}
button{font-size:1rem;padding:.6rem 1.4rem;margin-right:.5rem;cursor:pointer}
.note{color:#777;font-size:.85rem;margin-top:2rem}
</style>
</head>
<body>
${body}
<p class="note">Kessai processor simulator: test mode, no money moves.</p>
</body>
</html>
`;
}

function amountLine(payment: SimulatedPayment): string {
  return `<p class="amount" data-amount="${payment.amount}">${payment.amount} ${escapeHtml(payment.currency)}</p>`;
}

/** The page a customer opens from an operator payment's URL or QR code. */
export function operatorPaymentPage(payment: SimulatedPayment): string {
  const brand = escapeHtml(payment.operator?.brand ?? 'operator');
  switch (payment.status) {
    case 'awaiting_payment':
      return page(
        `Pay with ${brand}`,
        `<h1>Pay with ${brand}</h1>
${amountLine(payment)}
<form method="post">
<button type="submit" name="action" value="pay">Pay</button>
</form>`,
      );
    case 'captured':
      return page('Paid', `<h1>Paid</h1>${amountLine(payment)}<p>This payment is complete.</p>`);
    case 'expired':
      return page('Expired', '<h1>Expired</h1><p>This payment can no longer be paid.</p>');
    case 'pending_authentication':
    case 'authorized':
    case 'declined':
    case 'voided':
      return page('Unavailable', '<h1>Unavailable</h1><p>This payment can no longer be paid.</p>');
  }
}

/** The issuer's 3-D Secure page (an ACS): the customer authenticates, or fails to. */
export function threeDsChallengePage(payment: SimulatedPayment): string {
  if (payment.status !== 'pending_authentication') {
    return page('Authentication finished', '<h1>Authentication finished</h1><p>Nothing left to do here.</p>');
  }
  const lastFour = escapeHtml(payment.card?.lastFour ?? '');
  return page(
    '3-D Secure',
    `<h1>Confirm this payment</h1>
${amountLine(payment)}
<p>Card ending ${lastFour}</p>
<form method="post">
<button type="submit" name="result" value="authenticated">Authenticate</button>
<button type="submit" name="result" value="failed">Fail authentication</button>
</form>`,
  );
}

export function notFoundPage(): string {
  return page('Not found', '<h1>Not found</h1>');
}

/** The test bank's counter: transfer any amount to a virtual account number. */
export function bankCounterPage(deposit?: { id: string; amount: number }, accountNumber = ''): string {
  const done = deposit
    ? `<p class="amount" data-deposit="${escapeHtml(deposit.id)}">Sent ${deposit.amount}</p>`
    : '';
  return page(
    'Kessai Test Bank',
    `<h1>Kessai Test Bank</h1>${done}
<form method="post" action="/bank/transfers">
<p><label>Account number <input name="account_number" inputmode="numeric" value="${escapeHtml(accountNumber)}" required></label></p>
<p><label>Amount <input name="amount" inputmode="numeric" required></label></p>
<button type="submit">Transfer</button>
</form>`,
  );
}

/** A konbini payment slip: the code to pay at the counter, and a counter to pay it at. */
export function konbiniSlipPage(payment: SimulatedPayment): string {
  const instructions = payment.deferred?.instructions;
  if (!instructions || instructions.type !== 'konbini') return notFoundPage();
  const paid = (payment.deferred?.deposits ?? []).reduce((sum, deposit) => sum + deposit.amount, 0);
  const code = escapeHtml(instructions.payment_code);
  const open = payment.status === 'awaiting_payment';
  return page(
    'Konbini payment slip',
    `<h1>Pay at ${escapeHtml(instructions.convenience_store)}</h1>
${amountLine(payment)}
<p>Payment code <strong data-payment-code="${code}">${code}</strong>, receipt ${escapeHtml(instructions.receipt_number)}</p>
<p>Due ${escapeHtml(payment.deferred?.expiresAt.toISOString() ?? '')}; paid so far ${paid}</p>
${
  open
    ? `<form method="post" action="/konbini/payments">
<input type="hidden" name="payment_code" value="${code}">
<p><label>Amount handed over <input name="amount" inputmode="numeric" value="${payment.amount}" required></label></p>
<button type="submit">Pay at the counter</button>
</form>`
    : '<p>This payment can no longer be paid.</p>'
}`,
  );
}
