// POST /charges (docs/charges.md): what a created charge answers and what it writes, against the real
// gateway in-process, Postgres and Redis. No charge-service runs here: charges stay pending.
import { CHARGE_REQUESTED } from '@kessai/contracts';
import { lastWriterOf, outboxEventsOf, useSuite } from '@kessai/testing';
import { createGatewayApp } from '../../apps/gateway/src/app.factory';

const suite = useSuite({ gateway: createGatewayApp, merchants: { shop: { pci: true } } });

/**
 * The §5.2 fields of a pending charge given three_ds and redirect. Optional fields without a value
 * (subscription_id, capture_at, capture_status; ledger_id and mcp_token_id always) are left out.
 */
const CHARGE_FIELDS = [
  'id',
  'merchant_id',
  'store_id',
  'transaction_token_id',
  'transaction_token_type',
  'requested_amount',
  'requested_currency',
  'requested_amount_formatted',
  'charged_amount',
  'charged_currency',
  'charged_amount_formatted',
  'fee_amount',
  'fee_currency',
  'fee_amount_formatted',
  // Kessai's own (docs/refunds-and-cancels.md)
  'refunded_amount',
  'refunded_amount_formatted',
  'refundable_amount',
  'only_direct_currency',
  'descriptor',
  'status',
  'error',
  'three_ds',
  'redirect',
  'metadata',
  'mode',
  'created_on',
  'updated_on',
].sort();

describe('POST /charges', () => {
  it('answers 201 pending with the §5.2 fields, and writes the row, the token use and one charge_requested together', async () => {
    const tokenId = await suite.api.shop.cardToken();
    const body = await suite.api.shop.charge(tokenId, {
      amount: 1250,
      currency: 'usd',
      descriptor: 'SHOP 1',
      metadata: { order_id: 'A-1', n: 7 },
      three_ds: { mode: 'force', redirect_endpoint: 'https://shop.example.test/back' },
      redirect: { endpoint: 'https://shop.example.test/done' },
    });
    expect(Object.keys(body).sort()).toEqual(CHARGE_FIELDS);
    expect(body).toMatchObject({
      merchant_id: suite.merchants.shop.merchant.id,
      store_id: suite.merchants.shop.store.id,
      transaction_token_id: tokenId,
      transaction_token_type: 'one_time',
      requested_amount: 1250,
      requested_currency: 'USD',
      requested_amount_formatted: 12.5,
      charged_amount: null,
      charged_currency: null,
      charged_amount_formatted: null,
      fee_amount: null,
      descriptor: 'SHOP 1',
      only_direct_currency: false,
      status: 'pending',
      error: null,
      mode: 'test',
      metadata: { order_id: 'A-1', n: 7 },
    });
    expect(body.three_ds).toEqual({ mode: 'force', redirect_endpoint: 'https://shop.example.test/back' });
    expect(body.redirect).toEqual({ endpoint: 'https://shop.example.test/done' });
    expect(body.updated_on).toBe(body.created_on);

    const row = await suite.env.prisma.charge.findUniqueOrThrow({ where: { id: body.id } });
    expect(row).toMatchObject({ status: 'pending', requestedAmount: 1250n, capture: true });
    expect(row.createdOn.toISOString()).toBe(body.created_on);
    expect(row.updatedOn.toISOString()).toBe(body.updated_on);
    const events = await outboxEventsOf(suite.env, body.id);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({
      eventType: CHARGE_REQUESTED,
      aggregateType: 'charge',
      storeId: suite.merchants.shop.store.id,
      payload: { charge_id: body.id, store_id: suite.merchants.shop.store.id },
    });
    const token = await suite.env.prisma.transactionToken.findUniqueOrThrow({ where: { id: tokenId } });
    expect(token).toMatchObject({ usedCount: 1, active: false });
    const writer = await lastWriterOf(suite.env, 'charges', body.id);
    expect(await lastWriterOf(suite.env, 'outbox_events', events[0].id)).toBe(writer);
    expect(await lastWriterOf(suite.env, 'transaction_tokens', tokenId)).toBe(writer);

    const jpy = await suite.api.shop.charge(await suite.api.shop.cardToken(), { amount: 1200 });
    expect(jpy.requested_amount_formatted).toBe(1200);
  });

  it('replays an Idempotency-Key request without a second charge', async () => {
    const tokenId = await suite.api.shop.cardToken();
    const json = { transaction_token_id: tokenId, amount: 1200, currency: 'JPY' };
    const first = await suite.api.shop.postCharge(json, 'charge-key-1');
    const again = await suite.api.shop.postCharge(json, 'charge-key-1');
    expect(first.status).toBe(201);
    expect(again.status).toBe(201);
    expect(again.body).toEqual(first.body);
    expect(await suite.env.prisma.charge.count({ where: { transactionTokenId: tokenId } })).toBe(1);
  });

  it('accepts capture_at as an ISO time or a Unix time for an authorization, and metadata as a JSON string', async () => {
    const at = new Date(Date.now() + 3_600_000);
    const iso = await suite.api.shop.charge(await suite.api.shop.cardToken(), {
      capture: false,
      capture_at: at.toISOString(),
      metadata: '{"a":"b"}',
    });
    expect(iso).toMatchObject({ capture_at: at.toISOString(), metadata: { a: 'b' } });
    const seconds = await suite.api.shop.charge(await suite.api.shop.cardToken(), {
      capture: false,
      capture_at: Math.floor(at.getTime() / 1000),
    });
    expect(seconds.capture_at).toBe(new Date(Math.floor(at.getTime() / 1000) * 1000).toISOString());
    const ms = await suite.api.shop.charge(await suite.api.shop.cardToken(), {
      capture: false,
      capture_at: at.getTime(),
    });
    expect(ms.capture_at).toBe(at.toISOString());
  });

  it('a descriptor: kept for a card, refused for an online payment unless ignore_descriptor_on_error drops it', async () => {
    const withCard = await suite.api.shop.charge(await suite.api.shop.cardToken(), {
      descriptor: 'KESSAI SHOP',
    });
    expect(withCard.descriptor).toBe('KESSAI SHOP');

    const online = await suite.api.shop.onlineToken();
    const refused = await suite.api.shop.postCharge({
      transaction_token_id: online,
      amount: 1200,
      currency: 'JPY',
      descriptor: 'KESSAI SHOP',
    });
    expect(refused.status).toBe(400);
    expect(refused.body).toMatchObject({
      code: 'VALIDATION_ERROR',
      errors: [{ field: 'descriptor', reason: 'NOT_SUPPORTED_BY_PROCESSOR' }],
    });
    expect(refused.body.errors).toHaveLength(1);
    expect(await suite.env.prisma.charge.count({ where: { transactionTokenId: online } })).toBe(0);

    const explicitFalse = await suite.api.shop.postCharge({
      transaction_token_id: online,
      amount: 1200,
      currency: 'JPY',
      descriptor: 'KESSAI SHOP',
      ignore_descriptor_on_error: false,
    });
    expect(explicitFalse.body.errors).toEqual([
      { field: 'descriptor', reason: 'NOT_SUPPORTED_BY_PROCESSOR' },
    ]);

    const dropped = await suite.api.shop.charge(online, {
      descriptor: 'KESSAI SHOP',
      ignore_descriptor_on_error: true,
    });
    expect(dropped.status).toBe('pending');
    expect(dropped.descriptor).toBe(''); // none: a string all the same, as the SDK types it
    const row = await suite.env.prisma.charge.findUniqueOrThrow({ where: { id: dropped.id } });
    expect(row.descriptor).toBeNull();
  });
});
