// Which transaction token a charge may use, and how often: another store's or merchant's token is not
// found, the mode and payment type must fit, a one_time token is charged once however many requests
// race for it, a recurring one counts its uses. The real gateway in-process, Postgres and Redis; no
// charge-service.
import { randomUUID } from 'node:crypto';
import { REAL_CARD_NUMBER, useSuite, type Credentials } from '@kessai/testing';
import { createGatewayApp } from '../../apps/gateway/src/app.factory';

const suite = useSuite({
  gateway: createGatewayApp,
  merchants: { shop: { pci: true }, foreign: { pci: true } },
});
let shopMerchantToken: Credentials;

beforeAll(async () => {
  shopMerchantToken = await suite.env.merchantToken(suite.merchants.shop);
});

describe('POST /charges', () => {
  it('checks the token: another store or merchant 404, mode, payment type, type, inactive', async () => {
    const unknown = await suite.api.shop.postCharge({
      transaction_token_id: randomUUID(),
      amount: 1200,
      currency: 'JPY',
    });
    expect(unknown.status).toBe(404);
    const foreignToken = await suite.api.foreign.cardToken();
    const foreignUse = await suite.api.shop.postCharge({
      transaction_token_id: foreignToken,
      amount: 1200,
      currency: 'JPY',
    });
    expect(foreignUse.status).toBe(404);
    expect(foreignUse.body.code).toBe('NOT_FOUND');

    const live = await suite.env.liveStoreToken(suite.merchants.shop);
    const liveToken = await suite.gateway.as(live).cardToken({ cardNumber: REAL_CARD_NUMBER });
    const mismatch = await suite.api.shop.postCharge({
      transaction_token_id: liveToken,
      amount: 1200,
      currency: 'JPY',
    });
    expect(mismatch.status).toBe(400);
    expect(mismatch.body.code).toBe('PROCESSING_MODE_MISMATCH');

    const subscription = await suite.api.shop.cardToken({ type: 'subscription' });
    const wrongType = await suite.api.shop.postCharge({
      transaction_token_id: subscription,
      amount: 1200,
      currency: 'JPY',
    });
    expect(wrongType.body.code).toBe('INVALID_TOKEN_TYPE');

    const deleted = await suite.api.shop.cardToken({ type: 'recurring' });
    await suite.api.shop.request(`/stores/${suite.merchants.shop.store.id}/tokens/${deleted}`, {
      method: 'DELETE',
    });
    const inactive = await suite.api.shop.postCharge({
      transaction_token_id: deleted,
      amount: 1200,
      currency: 'JPY',
    });
    expect(inactive.status).toBe(400);
    expect(inactive.body.code).toBe('INVALID_TOKEN');

    const merchantWide = await suite.gateway
      .as(shopMerchantToken)
      .postCharge({ transaction_token_id: randomUUID(), amount: 1, currency: 'JPY' });
    expect(merchantWide.status).toBe(403);
    expect(merchantWide.body).toEqual({
      status: 'error',
      code: 'INVALID_PERMISSIONS',
      errors: [{ field: null, reason: 'STORE_TOKEN_REQUIRED' }],
    });

    const online = await suite.api.shop.onlineToken();
    const threeDs = await suite.api.shop.postCharge({
      transaction_token_id: online,
      amount: 1200,
      currency: 'JPY',
      three_ds: { mode: 'force' },
    });
    expect(threeDs.body.errors).toEqual([{ field: 'three_ds', reason: 'ONLY_FOR_CARD_PAYMENT' }]);
    const authOnly = await suite.api.shop.postCharge({
      transaction_token_id: online,
      amount: 1200,
      currency: 'JPY',
      capture: false,
    });
    expect(authOnly.body.code).toBe('CAPTURE_ONLY_FOR_CARD_PAYMENT');
    expect((await suite.api.shop.charge(online)).transaction_token_type).toBe('one_time');
  });

  it('parallel charges of two merchants (tokens read together): each finds its own token only', async () => {
    const [mine, theirs] = await Promise.all([suite.api.shop.cardToken(), suite.api.foreign.cardToken()]);
    const answers = await Promise.all([
      suite.api.shop.postCharge({ transaction_token_id: mine, amount: 1200, currency: 'JPY' }),
      suite.api.foreign.postCharge({ transaction_token_id: theirs, amount: 1300, currency: 'JPY' }),
      suite.api.shop.postCharge({ transaction_token_id: theirs, amount: 1400, currency: 'JPY' }),
      suite.api.foreign.postCharge({
        transaction_token_id: mine.toUpperCase(),
        amount: 1500,
        currency: 'JPY',
      }),
      suite.api.shop.postCharge({ transaction_token_id: randomUUID(), amount: 1600, currency: 'JPY' }),
    ]);
    expect(answers.map((answer) => answer.status)).toEqual([201, 201, 404, 404, 404]);
    expect(answers[0]?.body).toMatchObject({
      transaction_token_id: mine,
      store_id: suite.merchants.shop.store.id,
    });
    expect(answers[1]?.body).toMatchObject({
      transaction_token_id: theirs,
      store_id: suite.merchants.foreign.store.id,
    });
    expect(
      await suite.env.prisma.charge.count({ where: { transactionTokenId: { in: [mine, theirs] } } }),
    ).toBe(2);
  });

  it('charges a one_time token once: a reuse is 400 TRANSACTION_ALREADY_PROCESSED', async () => {
    const tokenId = await suite.api.shop.cardToken();
    await suite.api.shop.charge(tokenId);
    const again = await suite.api.shop.postCharge({
      transaction_token_id: tokenId,
      amount: 1200,
      currency: 'JPY',
    });
    expect(again.status).toBe(400);
    expect(again.body).toMatchObject({
      code: 'TRANSACTION_ALREADY_PROCESSED',
      errors: [{ field: 'transaction_token_id', reason: 'TRANSACTION_ALREADY_PROCESSED' }],
    });
  });

  it('20 parallel charges on one one_time token: exactly one charge', async () => {
    const tokenId = await suite.api.shop.cardToken();
    const answers = await Promise.all(
      Array.from({ length: 20 }, () =>
        suite.api.shop.postCharge({ transaction_token_id: tokenId, amount: 1200, currency: 'JPY' }),
      ),
    );
    const statuses = answers.map((a) => a.status).sort();
    expect(statuses).toEqual([201, ...Array<number>(19).fill(400)]);
    for (const a of answers.filter((x) => x.status === 400))
      expect(a.body.code).toBe('TRANSACTION_ALREADY_PROCESSED');
    expect(await suite.env.prisma.charge.count({ where: { transactionTokenId: tokenId } })).toBe(1);
    const used = await suite.env.prisma.transactionToken.findUniqueOrThrow({ where: { id: tokenId } });
    expect(used).toMatchObject({ active: false, usedCount: 1 });
    expect(used.lastUsedOn).not.toBeNull();
  });

  it('a recurring token stays active and counts its uses', async () => {
    const tokenId = await suite.api.shop.cardToken({ type: 'recurring' });
    await suite.api.shop.charge(tokenId, { amount: 1000 });
    await suite.api.shop.charge(tokenId, { amount: 2000 });
    expect(
      await suite.env.prisma.transactionToken.findUniqueOrThrow({ where: { id: tokenId } }),
    ).toMatchObject({
      active: true,
      usedCount: 2,
    });
  });
});
