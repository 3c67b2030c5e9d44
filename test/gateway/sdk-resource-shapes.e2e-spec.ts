// Every resource read through the official univapay-node SDK carries the keys its TypeScript types
// require, with the right types; the keys they type as optional are absent or hold a value, never
// null, unless api-reference shows null; every resource has created_on and updated_on (issue 19).
// The real gateway in-process, Postgres and Redis; no charge-service, so a test moves a charge in the
// database as charge-service would.
import { bearer, requestJson, sdkCardToken, updateChargeRow, useSuite } from '@kessai/testing';
import { createGatewayApp } from '../../apps/gateway/src/app.factory';

type Kind = 'string' | 'number' | 'boolean' | 'object' | 'timestamp';

/** What the SDK's type of a resource says about each key (the camelCase key, as the SDK yields it). */
interface Shape {
  /** present, of this kind, never null */
  required?: Record<string, Kind>;
  /** present, of this kind or null: api-reference shows null (e.g. `error`, `charged_*` while pending) */
  nullable?: Record<string, Kind>;
  /** absent, or of this kind: the SDK types it `key?: T`, which null would break */
  optional?: Record<string, Kind>;
}

function isKind(value: unknown, kind: Kind): boolean {
  if (kind === 'timestamp') {
    return typeof value === 'string' && new Date(value).toISOString() === value;
  }
  if (kind === 'object') return typeof value === 'object' && value !== null && !Array.isArray(value);
  return typeof value === kind;
}

/** The keys of `value` that break `shape`, as readable lines (empty when it conforms). */
function shapeProblems(value: unknown, shape: Shape, path = ''): string[] {
  const problems: string[] = [];
  const record = (value ?? {}) as Record<string, unknown>;
  for (const [key, kind] of Object.entries(shape.required ?? {})) {
    if (!(key in record)) problems.push(`${path}${key}: missing (required)`);
    else if (!isKind(record[key], kind))
      problems.push(`${path}${key}: ${JSON.stringify(record[key])} is not a ${kind}`);
  }
  for (const [key, kind] of Object.entries(shape.nullable ?? {})) {
    if (!(key in record)) problems.push(`${path}${key}: missing (required, nullable)`);
    else if (record[key] !== null && !isKind(record[key], kind)) {
      problems.push(`${path}${key}: ${JSON.stringify(record[key])} is neither null nor a ${kind}`);
    }
  }
  for (const [key, kind] of Object.entries(shape.optional ?? {})) {
    if (key in record && !isKind(record[key], kind)) {
      problems.push(
        `${path}${key}: ${JSON.stringify(record[key])} is not a ${kind} (optional: absent or a value)`,
      );
    }
  }
  return problems;
}

const TIMESTAMPS: Shape['required'] = { createdOn: 'timestamp', updatedOn: 'timestamp' };

/** ChargeItem in univapay-node's resources/Charges (+ updated_on). */
const CHARGE: Shape = {
  required: {
    ...TIMESTAMPS,
    id: 'string',
    merchantId: 'string',
    storeId: 'string',
    mode: 'string',
    transactionTokenType: 'string',
    status: 'string',
    descriptor: 'string',
    onlyDirectCurrency: 'boolean',
    requestedAmount: 'number',
    requestedCurrency: 'string',
    requestedAmountFormatted: 'number',
  },
  nullable: {
    chargedAmount: 'number',
    chargedCurrency: 'string',
    chargedAmountFormatted: 'number',
    error: 'object',
    feeAmount: 'number',
    feeCurrency: 'string',
    feeAmountFormatted: 'string',
  },
  optional: {
    threeDs: 'object',
    ledgerId: 'string',
    subscriptionId: 'string',
    captureAt: 'timestamp',
    captureStatus: 'string',
    transactionTokenId: 'string',
    redirect: 'object',
    metadata: 'object',
  },
};

/** PaymentError in univapay-node's errors/APIError (+ UnivaPay's `detail`). */
const PAYMENT_ERROR: Shape = {
  required: { code: 'number', message: 'string' },
  nullable: { detail: 'string' },
  optional: { details: 'string' },
};

/** TransactionTokenItem in univapay-node's resources/TransactionTokens (+ updated_on). */
const TOKEN: Shape = {
  required: {
    ...TIMESTAMPS,
    active: 'boolean',
    id: 'string',
    storeId: 'string',
    email: 'string',
    mode: 'string',
    lastUsedOn: 'timestamp',
    type: 'string',
    paymentType: 'string',
  },
  // optional in univapay-node (`usageLimit?`): left out without one (decision 0051)
  optional: {
    usageLimit: 'string',
    confirmed: 'boolean',
    previousId: 'string',
    data: 'object',
    metadata: 'object',
  },
};

/** TransactionTokenCardDataItem: card details, billing, cvv_authorize, three_ds. */
const CARD_DATA: Shape = {
  required: { card: 'object', cvvAuthorize: 'object' },
  optional: { billing: 'object', threeDs: 'object' },
};
const CARD_DETAILS: Shape = {
  required: {
    cardholder: 'string',
    expMonth: 'number',
    expYear: 'number',
    lastFour: 'string',
    brand: 'string',
  },
  optional: { subBrand: 'string', issuer: 'string', category: 'string', cardBin: 'string' },
};
const CVV_AUTHORIZE: Shape = {
  required: { enabled: 'boolean', status: 'string' },
  // required by the SDK's type; null: no CVV authorization ran against any processor credentials
  nullable: { credentialsId: 'string' },
  optional: { chargeId: 'string', currency: 'string' },
};

/** RefundItem in univapay-node's resources/Refunds (+ updated_on). */
const REFUND: Shape = {
  required: {
    ...TIMESTAMPS,
    id: 'string',
    storeId: 'string',
    chargeId: 'string',
    status: 'string',
    amount: 'number',
    currency: 'string',
    amountFormatted: 'number',
    mode: 'string',
  },
  // api-reference §2.5: error null when there is none
  nullable: { error: 'object' },
  optional: { ledgerId: 'string', reason: 'string', message: 'string', metadata: 'object' },
};

/** CancelItem in univapay-node's resources/Cancels (+ updated_on). */
const CANCEL: Shape = {
  required: { ...TIMESTAMPS, id: 'string', chargeId: 'string', status: 'string', mode: 'string' },
  nullable: { error: 'object' },
  optional: { storeId: 'string', metadata: 'object' },
};

/** StoreItem in univapay-node's resources/Stores (+ updated_on). */
const STORE: Shape = {
  required: { ...TIMESTAMPS, id: 'string', merchantId: 'string', name: 'string', configuration: 'object' },
};

/** MerchantItem in univapay-node's resources/Merchants (+ updated_on). */
const MERCHANT: Shape = {
  required: {
    ...TIMESTAMPS,
    id: 'string',
    name: 'string',
    email: 'string',
    verified: 'boolean',
    configuration: 'object',
  },
  optional: { verificationDataId: 'string', notificationEmail: 'string' },
};

const suite = useSuite({ gateway: createGatewayApp, merchants: { shop: { pci: true, label: 'shapes' } } });

const chargeOf = async (tokenId: string) =>
  suite.sdk.shop.charges.create({
    transactionTokenId: tokenId,
    amount: 1200,
    currency: 'JPY',
    descriptor: 'SHAPES',
  });

describe('resources as the SDK types them', () => {
  it('a charge, pending as created and when read, then successful', async () => {
    const token = await sdkCardToken(suite.sdk.shop);
    const created = await chargeOf(token.id);
    expect(shapeProblems(created, CHARGE)).toEqual([]);
    expect(created).toMatchObject({ status: 'pending', error: null, chargedAmount: null });
    for (const absent of [
      'ledgerId',
      'subscriptionId',
      'captureAt',
      'captureStatus',
      'threeDs',
      'redirect',
    ]) {
      expect(created).not.toHaveProperty(absent);
    }

    await updateChargeRow(
      suite.env,
      created.id,
      `status = 'successful', charged_amount = 1200, charged_currency = 'JPY', capture_status = 'captured',
       updated_on = now()`,
    );
    const read = await suite.sdk.shop.charges.get(suite.merchants.shop.store.id, created.id);
    expect(shapeProblems(read, CHARGE)).toEqual([]);
    expect(read).toMatchObject({ status: 'successful', chargedAmount: 1200, captureStatus: 'captured' });
    // not in the SDK's ChargeItem type, but every resource carries it
    const { updatedOn } = read as typeof read & { updatedOn: string };
    expect(Date.parse(updatedOn)).toBeGreaterThan(Date.parse(read.createdOn));

    const listed = await suite.sdk.shop.charges.list({ limit: 10 });
    expect(listed.items.length).toBeGreaterThan(0);
    for (const item of listed.items) expect(shapeProblems(item, CHARGE)).toEqual([]);
  });

  it("a failed charge's payment error carries detail and the details the SDK reads", async () => {
    const created = await chargeOf((await sdkCardToken(suite.sdk.shop)).id);
    await updateChargeRow(
      suite.env,
      created.id,
      `status = 'failed', error_code = 306, error_message = 'CARD_REJECTED',
       error_detail = 'the issuer declined the card', updated_on = now()`,
    );
    const failed = await suite.sdk.shop.charges.get(suite.merchants.shop.store.id, created.id);
    expect(shapeProblems(failed, CHARGE)).toEqual([]);
    expect(shapeProblems(failed.error, PAYMENT_ERROR, 'error.')).toEqual([]);
    expect(failed.error).toEqual({
      code: 306,
      message: 'CARD_REJECTED',
      detail: 'the issuer declined the card',
      details: 'the issuer declined the card',
    });

    const raw = await requestJson(
      suite.url,
      `/stores/${suite.merchants.shop.store.id}/charges/${created.id}`,
      {
        auth: bearer(suite.merchants.shop.storeToken),
      },
    );
    expect(raw.body.error).toEqual({
      code: 306,
      message: 'CARD_REJECTED',
      detail: 'the issuer declined the card',
      details: 'the issuer declined the card',
    });
  });

  it('a card token, as created, read once used, and listed', async () => {
    const created = await sdkCardToken(suite.sdk.shop);
    // never used yet: last_used_on is its creation, as univapay-node types a timestamp (decision 0044)
    expect(shapeProblems(created, TOKEN)).toEqual([]);
    expect(created.lastUsedOn).toBe(created.createdOn);
    await chargeOf(created.id);

    const read = await suite.sdk.shop.transactionTokens.get(suite.merchants.shop.store.id, created.id);
    const listed = await suite.sdk.shop.transactionTokens.list({ limit: 10 });
    const item = listed.items.find((token) => token.id === created.id);
    for (const token of [read, item]) {
      expect(shapeProblems(token, TOKEN)).toEqual([]);
      expect(shapeProblems(token?.data, CARD_DATA, 'data.')).toEqual([]);
      const data = token?.data as Record<string, unknown>;
      expect(shapeProblems(data.card, CARD_DETAILS, 'data.card.')).toEqual([]);
      expect(shapeProblems(data.cvvAuthorize, CVV_AUTHORIZE, 'data.cvvAuthorize.')).toEqual([]);
      expect(token).not.toHaveProperty('previousId');
      expect(data).not.toHaveProperty('threeDs');
    }
  });

  it('a refund and a cancel, as created, read and listed (reason and message absent when not given)', async () => {
    const paid = await chargeOf((await sdkCardToken(suite.sdk.shop)).id);
    await updateChargeRow(
      suite.env,
      paid.id,
      `status = 'successful', charged_amount = 1200, charged_currency = 'JPY', capture_status = 'captured',
       processor_reference = 'sim-shapes-1'`,
    );
    const refund = await suite.sdk.shop.refunds.create(suite.merchants.shop.store.id, paid.id, {
      amount: 200,
      currency: 'JPY',
    });
    expect(shapeProblems(refund, REFUND)).toEqual([]);
    expect(refund).not.toHaveProperty('reason');
    expect(refund).not.toHaveProperty('message');
    const described = await suite.sdk.shop.refunds.create(suite.merchants.shop.store.id, paid.id, {
      amount: 100,
      currency: 'JPY',
      reason: 'fraud' as never,
      message: 'chargeback expected',
    });
    expect(shapeProblems(described, REFUND)).toEqual([]);
    expect(described).toMatchObject({ reason: 'fraud', message: 'chargeback expected' });
    expect(
      shapeProblems(
        await suite.sdk.shop.refunds.get(suite.merchants.shop.store.id, paid.id, refund.id),
        REFUND,
      ),
    ).toEqual([]);
    for (const item of (await suite.sdk.shop.refunds.list(suite.merchants.shop.store.id, paid.id)).items) {
      expect(shapeProblems(item, REFUND)).toEqual([]);
    }

    const held = await suite.sdk.shop.charges.create({
      transactionTokenId: (await sdkCardToken(suite.sdk.shop)).id,
      amount: 1200,
      currency: 'JPY',
      capture: false,
    });
    await updateChargeRow(
      suite.env,
      held.id,
      `status = 'authorized', capture_status = 'authorized', processor_reference = 'sim-shapes-2'`,
    );
    const cancel = await suite.sdk.shop.cancels.create(suite.merchants.shop.store.id, held.id, {});
    expect(shapeProblems(cancel, CANCEL)).toEqual([]);
    expect(
      shapeProblems(
        await suite.sdk.shop.cancels.get(suite.merchants.shop.store.id, held.id, cancel.id),
        CANCEL,
      ),
    ).toEqual([]);
    for (const item of (await suite.sdk.shop.cancels.list(suite.merchants.shop.store.id, held.id)).items) {
      expect(shapeProblems(item, CANCEL)).toEqual([]);
    }
  });

  it('a store, read and listed', async () => {
    const store = await suite.sdk.shop.stores.get(suite.merchants.shop.store.id);
    expect(shapeProblems(store, STORE)).toEqual([]);
    const listed = await suite.sdk.shop.stores.list();
    for (const item of listed.items) expect(shapeProblems(item, STORE)).toEqual([]);
  });

  it('the merchant (/me)', async () => {
    const me = await suite.sdk.shop.merchants.me();
    expect(shapeProblems(me, MERCHANT)).toEqual([]);
    expect(me).not.toHaveProperty('verificationDataId');
  });

  it('app tokens (/app_jwts, not in the SDK: over HTTP) carry created_on and updated_on', async () => {
    const merchantToken = await suite.env.merchantToken(suite.merchants.shop);
    const issued = await requestJson(suite.url, '/app_jwts', {
      method: 'POST',
      auth: bearer(merchantToken),
      json: {},
    });
    const read = await requestJson(suite.url, `/app_jwts/${issued.body.id}`, { auth: bearer(merchantToken) });
    for (const token of [issued.body, read.body]) {
      expect(
        shapeProblems(token, { required: { created_on: 'timestamp', updated_on: 'timestamp' } }),
      ).toEqual([]);
    }
  });
});
