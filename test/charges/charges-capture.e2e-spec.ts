// POST /stores/{storeId}/charges/{id}/capture: an authorized charge's capture is requested once (a
// pending capture row and one capture_requested written together), however many requests race for
// it. The real gateway in-process, Postgres and Redis; no charge-service, so a test authorizes a
// charge in the database.
import { CAPTURE_REQUESTED } from '@kessai/contracts';
import {
  CaptureOutcomesRepository,
  CapturesRepository,
  ChargeSweepsRepository,
  ConsoleAuditRepository,
} from '@kessai/db';
import { captureTransition } from '@kessai/domain';
import { lastWriterOf, outboxEventsOf, sdkFor, updateChargeRow, useSuite } from '@kessai/testing';
import { createGatewayApp } from '../../apps/gateway/src/app.factory';

const suite = useSuite({ gateway: createGatewayApp, merchants: { shop: { pci: true } } });

describe('capture', () => {
  const capturePath = (id: string) => `/stores/${suite.merchants.shop.store.id}/charges/${id}/capture`;
  const capture = (id: string, json: unknown) =>
    suite.api.shop.request(capturePath(id), { method: 'POST', json });

  async function authorized(amount = 5000) {
    const c = await suite.api.shop.charge(await suite.api.shop.cardToken(), { capture: false, amount });
    await updateChargeRow(suite.env, c.id, `status = 'authorized', capture_status = 'authorized'`);
    return c;
  }

  it('accepts a partial capture of an authorized charge: a pending capture row and one capture_requested', async () => {
    const c = await authorized();
    for (const [json, code] of [
      [{ amount: 5001, currency: 'JPY' }, 'CAPTURE_AMOUNT_TOO_LARGE'],
      [{ amount: 3000, currency: 'USD' }, 'CURRENCY_MUST_MATCH_CHARGE'],
      [{ amount: 0, currency: 'JPY' }, 'VALIDATION_ERROR'],
      [{ amount: 3000 }, 'VALIDATION_ERROR'],
    ] as const) {
      const res = await capture(c.id, json);
      expect([json, res.status, res.body.code]).toEqual([json, 400, code]);
    }
    const ok = await capture(c.id, { amount: 3000, currency: 'JPY' });
    expect(ok.status).toBe(200);
    expect(ok.body).toEqual({ amount: 3000, currency: 'JPY' });
    expect(ok.headers.get('content-type')).toMatch(/application\/json/);

    const row = await suite.env.prisma.capture.findUniqueOrThrow({ where: { chargeId: c.id } });
    expect(row).toMatchObject({ amount: 3000n, currency: 'JPY', status: 'pending' });
    const events = (await outboxEventsOf(suite.env, c.id)).filter((e) => e.eventType === CAPTURE_REQUESTED);
    expect(events).toHaveLength(1);
    expect(events[0].payload).toEqual({ charge_id: c.id, capture_id: row.id });
    expect(await lastWriterOf(suite.env, 'outbox_events', events[0].id)).toBe(
      await lastWriterOf(suite.env, 'captures', row.id),
    );

    const again = await capture(c.id, { amount: 1000, currency: 'JPY' });
    expect(again.status).toBe(400);
    expect(again.body.code).toBe('ALREADY_CAPTURED');
  });

  it('a capture the processor refused may be requested again, as a new capture (new processor key)', async () => {
    const c = await authorized();
    expect((await capture(c.id, { amount: 5000, currency: 'JPY' })).status).toBe(200);
    const first = await suite.env.prisma.capture.findUniqueOrThrow({ where: { chargeId: c.id } });
    await suite.env.prisma.capture.update({
      where: { id: first.id },
      data: { status: 'failed', errorCode: 309, errorMessage: 'PROCESSING_ERROR' },
    });

    expect((await capture(c.id, { amount: 4000, currency: 'JPY' })).status).toBe(200);
    const second = await suite.env.prisma.capture.findUniqueOrThrow({ where: { chargeId: c.id } });
    expect(second).toMatchObject({ amount: 4000n, status: 'pending', errorCode: null });
    expect(second.id).not.toBe(first.id);
    const commands = (await outboxEventsOf(suite.env, c.id)).filter((e) => e.eventType === CAPTURE_REQUESTED);
    expect(commands.map((e) => e.payload)).toEqual([
      { charge_id: c.id, capture_id: first.id },
      { charge_id: c.id, capture_id: second.id },
    ]);
    // a pending (or successful) capture still blocks another
    expect((await capture(c.id, { amount: 1000, currency: 'JPY' })).body.code).toBe('ALREADY_CAPTURED');
  });

  it('parallel captures: exactly one is accepted', async () => {
    const c = await authorized();
    const answers = await Promise.all(
      Array.from({ length: 8 }, () => capture(c.id, { amount: 5000, currency: 'JPY' })),
    );
    expect(answers.filter((a) => a.status === 200)).toHaveLength(1);
    expect(answers.filter((a) => a.body?.code === 'ALREADY_CAPTURED')).toHaveLength(7);
    expect(await suite.env.prisma.capture.count({ where: { chargeId: c.id } })).toBe(1);
  });

  it('refuses a charge that is not authorized: pending INVALID_CHARGE_STATUS, captured ALREADY_CAPTURED', async () => {
    const pending = await suite.api.shop.charge(await suite.api.shop.cardToken(), { capture: false });
    expect((await capture(pending.id, { amount: 100, currency: 'JPY' })).body.code).toBe(
      'INVALID_CHARGE_STATUS',
    );
    await updateChargeRow(
      suite.env,
      pending.id,
      `status = 'successful', capture_status = 'captured', charged_amount = 1200, charged_currency = 'JPY'`,
    );
    expect((await capture(pending.id, { amount: 100, currency: 'JPY' })).body.code).toBe('ALREADY_CAPTURED');
    expect(await suite.env.prisma.capture.count({ where: { chargeId: pending.id } })).toBe(0);
  });

  describe('with a cancel', () => {
    const cancel = (id: string) =>
      suite.api.shop.request(`/stores/${suite.merchants.shop.store.id}/charges/${id}/cancels`, {
        method: 'POST',
        json: {},
      });
    const held = async () => {
      const c = await authorized(3000);
      await updateChargeRow(
        suite.env,
        c.id,
        `processor_reference = 'sim-${c.id}', capture_at = now() - interval '1 second'`,
      );
      return c;
    };

    it('a cancel accepted first refuses the capture, from the API and from capture_at', async () => {
      const c = await held();
      expect((await cancel(c.id)).status).toBe(201);
      const refused = await capture(c.id, { amount: 3000, currency: 'JPY' });
      expect([refused.status, refused.body.code, refused.body.errors]).toEqual([
        400,
        'INVALID_CHARGE_STATUS',
        [{ field: 'status', reason: 'CANCEL_IN_PROGRESS' }],
      ]);
      // capture_at is due, but charge-service's sweep does not see the charge, and a request from it is refused
      const sweeps = new ChargeSweepsRepository(suite.env.prisma);
      expect((await sweeps.findDueCaptures(1000)).map((due) => due.id)).not.toContain(c.id);
      const captures = new CapturesRepository(suite.env.prisma, new ConsoleAuditRepository(suite.env.prisma));
      await expect(
        captures.requestCapture({ chargeId: c.id, amount: 3000n, currency: 'JPY' }),
      ).resolves.toEqual({
        outcome: 'cancel_pending',
      });
      expect(await suite.env.prisma.capture.count({ where: { chargeId: c.id } })).toBe(0);
    });

    it('a capture accepted first refuses the cancel; a failed capture frees the charge again', async () => {
      const c = await held();
      expect((await capture(c.id, { amount: 3000, currency: 'JPY' })).status).toBe(200);
      const refused = await cancel(c.id);
      expect([refused.status, refused.body.code]).toEqual([400, 'CANCEL_NOT_ALLOWED']);
      expect(await suite.env.prisma.cancel.count({ where: { chargeId: c.id } })).toBe(0);

      const outcomes = new CaptureOutcomesRepository(suite.env.prisma);
      const pending = await suite.env.prisma.capture.findUniqueOrThrow({ where: { chargeId: c.id } });
      await outcomes.recordCaptureFailed(pending.id, captureTransition('pending', 'failed'), {
        code: 308,
        message: 'CHARGE_INVALID_DATA',
        detail: null,
      });
      expect(
        (await suite.env.prisma.charge.findUniqueOrThrow({ where: { id: c.id } })).pendingOperation,
      ).toBeNull();
      expect((await cancel(c.id)).status).toBe(201);
    });
  });

  it('works through the SDK (captures.create resolves to the CaptureItem asked for)', async () => {
    const c = await authorized(2000);
    const sdk = sdkFor(suite.api.shop.baseUrl, suite.merchants.shop.storeToken);
    await expect(
      sdk.captures.create(suite.merchants.shop.store.id, c.id, { amount: 2000, currency: 'JPY' }),
    ).resolves.toEqual({ amount: 2000, currency: 'JPY' });
    const got: any = await sdk.charges.get(suite.merchants.shop.store.id, c.id);
    expect(got).toMatchObject({ id: c.id, status: 'authorized', requestedAmountFormatted: 2000 });
  });
});
