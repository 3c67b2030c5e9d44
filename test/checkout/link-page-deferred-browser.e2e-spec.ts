// Bank transfer and konbini on the hosted link page, in a real browser (docs/hosted-checkout.md,
// "Bank transfer and konbini"): Debian's chromium driven by playwright-core against the real gateway
// and two charge-service processes (the mailer's replicas), the processor simulator (the test bank and
// konbini network) and a real SMTP server on loopback (the consumer's mailbox). A consumer pays a link
// by bank transfer and at a konbini, sees the virtual account or payment code, the amount and the
// deadline, finds the same in one mail, and sees them again on coming back without a second charge; a
// store with both switched off does not offer them; bad input is refused with the page's own errors
// or the API's envelope. axe-core checks the pages; each step leaves a screenshot in
// test-results/checkout/.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { formatDeadline } from '@kessai/presenters';
import {
  axeViolations,
  createCheckoutForm,
  createCheckoutLink,
  eventually,
  launchChromium,
  linkAuth,
  linkPage,
  Mailbox,
  requestJson,
  useSuite,
  type SeededMerchant,
} from '@kessai/testing';
import { startProcessorSimulator } from '../../apps/processor-simulator/src/start-simulator';
import { createGatewayApp } from '../../apps/gateway/src/app.factory';

const SHOTS = join(__dirname, '..', '..', 'test-results', 'checkout');
const STEP_MS = 20_000;
jest.setTimeout(60_000);

// the mailbox listens before the suite starts: its address is the workers' SMTP_URL
const mailbox = new Mailbox();
beforeAll(() => mailbox.start());

const suite = useSuite({
  variables: () => ({
    SMTP_URL: mailbox.url,
    MAIL_FROM: 'Acme via Kessai <pay@kessai.test>',
    PAYMENT_MAIL_INTERVAL_MS: '100',
    CHARGE_SWEEP_INTERVAL_MS: '200',
  }),
  simulator: (callbackSecret) =>
    startProcessorSimulator({ latencyMs: 0, callbackSecret, callbackRetryBaseDelayMs: 50 }),
  gateway: (config) => createGatewayApp(config),
  workers: ['charge-service'],
  callbacks: true,
});
let browser: Browser;
let context: BrowserContext;
let shop: SeededMerchant;
let form: any;

const linkUrl = (link: any, lang = 'en') =>
  `${suite.url}/checkout/pay/${link.id}?secret=${encodeURIComponent(link.secret)}&lang=${lang}`;

const createLink = (owner: SeededMerchant, formId: string) => createCheckoutLink(suite.url, owner, formId);

/** A bank-transfer token for Taro, whose mail gets the instructions. */
const TARO_BANK_TRANSFER = {
  payment_type: 'bank_transfer',
  type: 'one_time',
  email: 'taro@example.test',
  data: { brand: 'bank_test_brand' },
};

async function shot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true });
}

async function expectAccessible(page: Page): Promise<void> {
  const violations = await axeViolations(page);
  expect(violations.filter((v) => v.impact === 'serious' || v.impact === 'critical')).toEqual([]);
}

/** The instructions the page shows: label → value, as the consumer reads them. */
async function shownInstructions(page: Page): Promise<Record<string, string>> {
  await page.locator('#instructions:not([hidden])').waitFor();
  const lines = await page
    .locator('#instructions-lines .instruction')
    .evaluateAll((rows) =>
      rows.map((row: any) => [row.querySelector('dt').textContent, row.querySelector('dd').textContent]),
    );
  return Object.fromEntries(lines as [string, string][]);
}

/** The link's charges (by its metadata): one per link, however often the page is opened. */
async function chargesOfLink(linkId: string) {
  return suite.env.prisma.charge.findMany({
    where: { metadata: { path: ['checkout_link_id'], equals: linkId } },
  });
}

/** The link's charge once it awaits with the processor's instructions. */
async function awaitingCharge(linkId: string) {
  return eventually(
    async () => {
      const [charge] = await chargesOfLink(linkId);
      return charge?.status === 'awaiting' && charge.issuerToken ? charge : null;
    },
    { timeoutMs: STEP_MS, what: "the link's charge awaiting" },
  );
}

/** The one mail of a charge, once its row says it was sent. */
async function mailOf(chargeId: string, timeoutMs = STEP_MS) {
  await eventually(
    async () =>
      (await suite.env.prisma.checkoutPaymentMail.findUnique({ where: { chargeId } }))?.status === 'sent',
    { timeoutMs, what: 'the instructions mail sent' },
  );
  const mails = mailbox.messages.filter((mail) => mail.messageId?.includes(chargeId));
  expect(mails).toHaveLength(1);
  return mails[0];
}

beforeAll(async () => {
  mkdirSync(SHOTS, { recursive: true });
  suite.cleanup(() => mailbox.close());
  // a second charge-service: the mailer's replicas race for every mail
  await suite.startWorker('charge-service');
  shop = await suite.env.seedMerchant('deferred-shop');
  form = await createCheckoutForm(suite, shop, 'Deferred', {
    title: 'Acme order',
    supported_payment_methods: ['card', 'bank_transfer', 'konbini'],
  });
  browser = await launchChromium();
  suite.cleanup(() => browser.close());
}, 60_000);

beforeEach(async () => {
  context = await browser.newContext({ viewport: { width: 390, height: 844 }, locale: 'en-US' });
  context.setDefaultTimeout(STEP_MS);
});

afterEach(async () => {
  await context?.close();
});

describe('bank transfer on the link page', () => {
  let link: any;
  let shown: Record<string, string>;

  it('shows the virtual account, the amount and the deadline, and mails the same once', async () => {
    link = await createLink(shop, form.id);
    const page = await context.newPage();
    await page.goto(linkUrl(link));
    await page.getByRole('radio', { name: 'Bank transfer' }).check();
    expect(await page.getByLabel('Card number').isVisible()).toBe(false);
    // the instructions are mailed: the email is asked for, and checked before anything is sent
    await page.getByRole('button', { name: /Pay/ }).click();
    await page.locator('#email-error', { hasText: 'Enter this field.' }).waitFor();
    expect(await chargesOfLink(link.id)).toEqual([]);
    await page.getByLabel('Email').fill('taro@example.test');
    await expectAccessible(page);
    await shot(page, '20-bank-transfer-chosen');
    await page.getByRole('button', { name: /Pay/ }).click();

    shown = await shownInstructions(page);
    await expectAccessible(page);
    await shot(page, '21-bank-transfer-instructions');
    const charge = await awaitingCharge(link.id);
    const payload = (charge.issuerToken as any).payload;
    const deadline = formatDeadline(charge.expiresOn!, 'Asia/Tokyo', 'en');
    expect(shown).toEqual({
      Bank: `${payload.bank_name} (${payload.bank_code})`,
      Branch: `${payload.branch_name} (${payload.branch_code})`,
      'Account number (ordinary)': payload.account_number,
      'Account holder': payload.account_holder_name,
      Amount: '¥1,500',
      'Pay by': deadline,
    });
    expect(payload.account_number).toMatch(/^\d{7}$/);
    expect(deadline).toMatch(/GMT\+9/);
    expect(await page.locator('#instructions-mailed').textContent()).toContain('sent to your email');

    const mail = await mailOf(charge.id);
    expect(mail.to).toEqual(['taro@example.test']);
    expect(mail.from).toBe('"Acme via Kessai" <pay@kessai.test>');
    expect(mail.subject).toBe(`${shop.store.name}: how to pay by bank transfer`);
    for (const [label, value] of Object.entries(shown)) expect(mail.text).toContain(`${label}: ${value}`);
  });

  it('shows the same instructions when the consumer comes back, and charges nothing again', async () => {
    const page = await context.newPage();
    await page.goto(linkUrl(link));
    expect(await shownInstructions(page)).toEqual(shown);
    expect(await page.locator('#pay-form').isHidden()).toBe(true);
    await shot(page, '22-bank-transfer-revisited');
    expect(await chargesOfLink(link.id)).toHaveLength(1);
    // a second payment on the link is refused: it is claimed for the first
    const token = await linkPage(suite.url, link).token(TARO_BANK_TRANSFER);
    expect(token.status).toBe(201);
    const again = await linkPage(suite.url, link).pay(token.body.id);
    expect(again.status).toBe(400);
    expect(again.body.code).toBe('TRANSACTION_ALREADY_PROCESSED');
    expect(await chargesOfLink(link.id)).toHaveLength(1);
  });
});

describe('konbini on the link page', () => {
  it('shows the store, payment code, receipt number, amount and deadline in Japanese, and mails them once', async () => {
    const link = await createLink(shop, form.id);
    const page = await context.newPage();
    await page.goto(linkUrl(link, 'ja'));
    await page.getByRole('radio', { name: 'コンビニ払い' }).check();
    const stores = await page.locator('#konbini-store option').allTextContents();
    expect(stores).toEqual(expect.arrayContaining(['セブン-イレブン', 'ローソン', 'ファミリーマート']));
    await page.getByLabel('お支払いするコンビニ').selectOption('lawson');
    await page.getByLabel('お名前').fill('山田 花子');
    await page.getByLabel('電話番号').fill('abc');
    await page.getByLabel('メールアドレス').fill('hanako@example.test');
    await page.getByRole('button', { name: /支払う/ }).click();
    await page.locator('#phone-error', { hasText: '正しい電話番号を入力してください。' }).waitFor();
    await page.getByLabel('電話番号').fill('090-1234-5678');
    await expectAccessible(page);
    await shot(page, '23-konbini-chosen');
    await page.getByRole('button', { name: /支払う/ }).click();

    const shown = await shownInstructions(page);
    await shot(page, '24-konbini-instructions');
    const charge = await awaitingCharge(link.id);
    const payload = (charge.issuerToken as any).payload;
    expect(payload.convenience_store).toBe('lawson');
    expect(shown).toEqual({
      コンビニ: 'ローソン',
      払込番号: payload.payment_code,
      受付番号: payload.receipt_number,
      金額: '￥1,500',
      お支払い期限: formatDeadline(charge.expiresOn!, 'Asia/Tokyo', 'ja'),
    });
    const token = await suite.env.prisma.transactionToken.findUnique({
      where: { id: charge.transactionTokenId },
    });
    expect(token?.data).toMatchObject({
      customer_name: '山田 花子',
      convenience_store: 'lawson',
      phone_number: { country_code: '81', local_number: '090-1234-5678' },
    });

    const mail = await mailOf(charge.id);
    expect(mail.to).toEqual(['hanako@example.test']);
    expect(mail.subject).toBe(`【${shop.store.name}】コンビニでのお支払いのご案内`);
    for (const [label, value] of Object.entries(shown)) expect(mail.text).toContain(`${label}: ${value}`);

    // back on the page: the same code, no second charge
    const again = await context.newPage();
    await again.goto(linkUrl(link, 'ja'));
    expect(await shownInstructions(again)).toEqual(shown);
    expect(await chargesOfLink(link.id)).toHaveLength(1);
  });
});

describe('a store that takes neither', () => {
  it('is offered neither on the link page, and a token of either is refused', async () => {
    const other = await suite.env.seedMerchant('card-only-shop');
    await suite.cli(
      'store:configure',
      '--store',
      other.store.id,
      '--set',
      '{"bank_transfer_configuration": {"enabled": false}, "convenience_configuration": {"enabled": false}}',
    );
    const cardOnly = await createCheckoutForm(suite, other, 'Card only', {
      title: 'Card shop order',
      supported_payment_methods: ['card', 'bank_transfer', 'konbini'],
    });
    const link = await createLink(other, cardOnly.id);
    const page = await context.newPage();
    await page.goto(linkUrl(link));
    await page.getByRole('heading', { name: 'Card shop order' }).waitFor();
    // the card alone: no method to choose, no bank or konbini fields
    expect(await page.getByRole('radio').count()).toBe(0);
    expect(await page.getByText('Bank transfer').count()).toBe(0);
    expect(await page.locator('#konbini-store').count()).toBe(0);
    expect(await page.getByLabel('Card number').isVisible()).toBe(true);
    await shot(page, '25-card-only-store');

    for (const [json, code] of [
      [{ payment_type: 'bank_transfer', data: { brand: 'bank_test_brand' } }, 'DISABLED_PAYMENT_TYPE'],
      [
        {
          payment_type: 'konbini',
          data: {
            customer_name: 'Taro',
            convenience_store: 'lawson',
            phone_number: { country_code: '81', local_number: '09012345678' },
          },
        },
        'CONVENIENCE_PROCESSING_DISABLED',
      ],
    ] as const) {
      const refused = await linkPage(suite.url, link).token({
        ...json,
        type: 'one_time',
        email: 'taro@example.test',
      });
      expect({ status: refused.status, code: refused.body.code }).toEqual({ status: 400, code });
    }
  });
});

describe('bad input', () => {
  const konbini = (store: string) => ({
    payment_type: 'konbini',
    type: 'one_time',
    data: {
      customer_name: 'Taro',
      convenience_store: store,
      phone_number: { country_code: '81', local_number: '09012345678' },
    },
  });

  it('an unknown konbini, a payment without an email, a method the form does not offer: the error envelope', async () => {
    const link = await createLink(shop, form.id);
    const post = (path: string, json: unknown) =>
      requestJson(suite.url, path, { method: 'POST', auth: linkAuth(link), origin: suite.url, json });

    const unknown = await post('/tokens', { ...konbini('corner_shop'), email: 'taro@example.test' });
    expect(unknown.status).toBe(400);
    expect(unknown.body.code).toBe('VALIDATION_ERROR');
    expect(unknown.body.errors).toContainEqual(expect.objectContaining({ field: 'data.convenience_store' }));

    // no email: nowhere to send the instructions
    const noEmail = await post('/tokens', konbini('lawson'));
    expect(noEmail.status).toBe(201);
    const refused = await post(`/checkout/links/${link.id}/payments`, {
      transaction_token_id: noEmail.body.id,
    });
    expect(refused.status).toBe(400);
    expect(refused.body).toMatchObject({
      code: 'VALIDATION_ERROR',
      errors: [{ field: 'email', reason: 'REQUIRED_VALUE' }],
    });
    // the refusal gave the link back: nothing was charged
    expect(await chargesOfLink(link.id)).toEqual([]);

    // a form that offers cards only: its link pays no bank transfer
    const cardForm = await createCheckoutForm(suite, shop, 'Cards', { supported_payment_methods: ['card'] });
    const cardLink = await createLink(shop, cardForm.id);
    const bank = await linkPage(suite.url, cardLink).token(TARO_BANK_TRANSFER);
    expect(bank.status).toBe(201);
    const notOffered = await linkPage(suite.url, cardLink).pay(bank.body.id);
    expect(notOffered.status).toBe(400);
    expect(notOffered.body).toMatchObject({
      code: 'DISABLED_PAYMENT_TYPE',
      errors: [{ field: 'transaction_token_id', reason: 'PAYMENT_TYPE_NOT_OFFERED' }],
    });
    expect(await chargesOfLink(cardLink.id)).toEqual([]);
  });
});

describe('a mail server that refuses for a while', () => {
  it('gets the mail later, once: the mailer postpones it and tries again', async () => {
    mailbox.refuseNext(1);
    const link = await createLink(shop, form.id);
    const post = (path: string, json: unknown) =>
      requestJson(suite.url, path, { method: 'POST', auth: linkAuth(link), origin: suite.url, json });
    const token = await post('/tokens', {
      payment_type: 'bank_transfer',
      type: 'one_time',
      email: 'jiro@example.test',
      data: { brand: 'bank_test_brand' },
    });
    const payment = await post(`/checkout/links/${link.id}/payments`, {
      transaction_token_id: token.body.id,
      lang: 'en',
    });
    expect(payment.status).toBe(201);
    const postponed = await eventually(
      async () => {
        const row = await suite.env.prisma.checkoutPaymentMail.findUnique({
          where: { chargeId: payment.body.id },
        });
        return row?.lastError ? row : null;
      },
      { timeoutMs: STEP_MS, what: 'the refused mail postponed' },
    );
    expect(postponed).toMatchObject({ status: 'pending', attempts: 1 });
    expect(postponed.lastError).toContain('451');
    expect(postponed.lastError).not.toContain('jiro@example.test');
    expect(mailbox.refused).toBe(1);
    expect(mailbox.to('jiro@example.test')).toEqual([]);
    // tried again after its backoff (10 s), by either replica
    const mail = await mailOf(payment.body.id, 40_000);
    expect(mail.to).toEqual(['jiro@example.test']);
  }, 60_000);
});

// last: what the runs above left behind
describe('the mailbox', () => {
  it('got one mail per charge, however many charge-service replicas ran the mailer', async () => {
    const sent = await suite.env.prisma.checkoutPaymentMail.findMany({ where: { status: 'sent' } });
    expect(sent.length).toBeGreaterThanOrEqual(2);
    for (const row of sent)
      expect(mailbox.messages.filter((mail) => mail.messageId?.includes(row.chargeId))).toHaveLength(1);
    expect(mailbox.messages).toHaveLength(sent.length);
  });
});
