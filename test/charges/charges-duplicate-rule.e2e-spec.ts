// The duplicate rule (error 311): a second charge of the same amount and currency on a recurring card
// token within 30 s fails at once, atomically under parallel requests. The real gateway in-process,
// Postgres and Redis; no charge-service, so the first charge stays pending.
import { CHARGE_FINISHED, CHARGE_REQUESTED } from '@kessai/contracts';
import { outboxEventsOf, updateChargeRow, useSuite } from '@kessai/testing';
import { createGatewayApp } from '../../apps/gateway/src/app.factory';

const suite = useSuite({ gateway: createGatewayApp, merchants: { shop: { pci: true } } });

describe('duplicate rule (311)', () => {
  it('fails a second same-amount charge on a recurring card token within 30 s, without touching the token', async () => {
    const tokenId = await suite.api.shop.cardToken({ type: 'recurring' });
    const first = await suite.api.shop.charge(tokenId);
    const second = await suite.api.shop.charge(tokenId);
    expect(second).toMatchObject({
      status: 'failed',
      error: { code: 311, message: 'TOO_MANY_CHARGE_REQUESTS' },
      requested_amount: 1200,
    });
    const events = await outboxEventsOf(suite.env, second.id);
    expect(events.map((e) => e.eventType)).toEqual([CHARGE_FINISHED]);
    expect(events[0].payload).toEqual({
      charge_id: second.id,
      store_id: suite.merchants.shop.store.id,
      status: 'failed',
    });
    expect(
      (await suite.env.prisma.transactionToken.findUniqueOrThrow({ where: { id: tokenId } })).usedCount,
    ).toBe(1);

    expect((await suite.api.shop.charge(tokenId, { amount: 1300 })).status).toBe('pending');
    expect((await suite.api.shop.charge(tokenId, { currency: 'USD' })).status).toBe('pending');
    expect((await suite.api.shop.charge(tokenId)).status).toBe('failed');

    // 31 s later, moved back in the database rather than waited for; the refused charges are recent
    // still, and do not extend the window
    await updateChargeRow(suite.env, first.id, `created_on = created_on - interval '31 seconds'`);
    const later = await suite.api.shop.charge(tokenId);
    expect(later.status).toBe('pending');
    expect(later.error).toBeNull();
  });

  it('does not apply to one_time card tokens or to other payment types', async () => {
    // a recurring online token is charged as often as the merchant likes
    const online = await suite.api.shop.onlineToken({ type: 'recurring' });
    expect((await suite.api.shop.charge(online)).status).toBe('pending');
    expect((await suite.api.shop.charge(online)).status).toBe('pending');
  });

  it('is atomic: 10 parallel same-amount charges on one recurring token → one pending, nine 311', async () => {
    const tokenId = await suite.api.shop.cardToken({ type: 'recurring' });
    const answers = await Promise.all(
      Array.from({ length: 10 }, () =>
        suite.api.shop.postCharge({ transaction_token_id: tokenId, amount: 5000, currency: 'JPY' }),
      ),
    );
    expect(answers.map((a) => a.status)).toEqual(Array<number>(10).fill(201));
    const statuses = answers.map((a) => a.body.status).sort();
    expect(statuses).toEqual([...Array<string>(9).fill('failed'), 'pending']);
    expect(answers.filter((a) => a.body.status === 'failed').every((a) => a.body.error.code === 311)).toBe(
      true,
    );
    const requested = await suite.env.prisma.outboxEvent.count({
      where: { eventType: CHARGE_REQUESTED, aggregateId: { in: answers.map((a) => a.body.id as string) } },
    });
    expect(requested).toBe(1);
  });
});
