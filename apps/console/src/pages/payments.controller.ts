import { Body, Controller, Get, Inject, Param, Post, Query, Req, Res } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { randomUUID } from 'node:crypto';
import { Readable } from 'node:stream';
import { stringify } from 'csv-stringify';
import type { z } from 'zod';
import { APP_CONFIG, type AppConfig } from '@kessai/config';
import { CancelsService, ChargesService, RefundsService } from '@kessai/payments';
import {
  CapturesRepository,
  StoresRepository,
  OutboxRepository,
  TransactionTokensRepository,
  type Charge,
  type ChargeListItem,
} from '@kessai/db';
import {
  CANCELLABLE_CHARGE_STATUSES,
  CAPTURABLE_CHARGE_STATUS,
  isUuid,
  NotFoundError,
  PAGE_LIMIT_DEFAULT,
} from '@kessai/domain';
import { may } from '../roles';
import { ConsoleSessions, type ConsoleSession } from '../session/console-sessions';
import { cookieOptions, MODE_COOKIE } from '../session/cookies';
import { CurrentSession, Requires } from '../session/decorators';
import type { PageContext } from '../views/layout';
import { paymentListPage, paymentPage } from '../views/payments';
import { minorAmount } from '../views/money';
import {
  cancelForm,
  captureForm,
  modeForm,
  paymentListQuery,
  refundForm,
  type PaymentListQuery,
} from './payments.schemas';
import { auditOf, badFields, keysetPage, listedOrMissing, refusalOfWrite, send } from './page-replies';
import { modeOf, pageContext } from './request-context';

/** The most events a payment's timeline shows. */
const TIMELINE_LIMIT = 200;
/** The refunds a payment's page lists. */
const REFUNDS_SHOWN = 100;
/** The stores the list's store filter offers (a merchant's first ones; the URL takes any of its own). */
const STORES_OFFERED = 100;
/** The rows the CSV export reads per keyset page: all it holds at once. */
const EXPORT_PAGE = 500;

/** The CSV export's columns (amounts in minor units, as the API's). */
const EXPORT_COLUMNS = [
  'id',
  'created_on',
  'status',
  'mode',
  'store_id',
  'store_name',
  'requested_amount',
  'requested_currency',
  'charged_amount',
  'charged_currency',
  'transaction_token_id',
  'metadata',
  'email',
  'payment_type',
] as const;

/** A write a payment's page offers: its form, the message of its refusal, the query of its notice. */
interface ChargeAction<F> {
  form: z.ZodType<F, z.ZodTypeDef, unknown>;
  refused: 'refundRefused' | 'captureRefused' | 'cancelRefused';
  done: 'refunded' | 'captured' | 'canceled';
}
const REFUND: ChargeAction<z.infer<typeof refundForm>> = {
  form: refundForm,
  refused: 'refundRefused',
  done: 'refunded',
};
const CAPTURE: ChargeAction<z.infer<typeof captureForm>> = {
  form: captureForm,
  refused: 'captureRefused',
  done: 'captured',
};
const CANCEL: ChargeAction<z.infer<typeof cancelForm>> = {
  form: cancelForm,
  refused: 'cancelRefused',
  done: 'canceled',
};

/**
 * The payments pages (docs/console.md): the list with its filters in the URL and keyset pages, a
 * payment with its refunds and events, and its actions through the use cases the API runs: a refund
 * (RefundsService.create, POST …/refunds), a capture (ChargesService.capture, POST …/capture), a
 * cancel (CancelsService.create, POST …/cancels), each with the console's audit row in its
 * transaction.
 */
@Controller()
export class PaymentsController {
  constructor(
    private readonly sessions: ConsoleSessions,
    private readonly charges: ChargesService,
    private readonly refunds: RefundsService,
    private readonly cancels: CancelsService,
    private readonly captures: CapturesRepository,
    private readonly outbox: OutboxRepository,
    private readonly tokens: TransactionTokensRepository,
    private readonly stores: StoresRepository,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  @Get('payments')
  @Requires('payments:read')
  async list(
    @CurrentSession() session: ConsoleSession,
    @Query() query: Record<string, string>,
    @Req() request: FastifyRequest,
    @Res() reply: FastifyReply,
  ) {
    const ctx = pageContext(request, this.sessions);
    const shown = stringsOf(query);
    const scope = { merchantId: session.user.merchantId, storeId: null };
    const stores = await this.stores.list(scope, { limit: STORES_OFFERED, cursor: null, direction: 'asc' });
    const storeOptions = stores.slice(0, STORES_OFFERED).map((store) => ({ id: store.id, name: store.name }));
    const parsed = paymentListQuery.safeParse(query);
    if (!parsed.success) {
      return send(reply, 400, refusedFilterPage(ctx, shown, storeOptions, parsed.error));
    }
    const q = parsed.data;
    const backwards = q.direction === 'previous';
    const { rows } = await listedOrMissing(
      this.charges.list(
        scope,
        q.store ?? null,
        filtersOf(q, modeOf(request)),
        { limit: PAGE_LIMIT_DEFAULT, cursor: q.cursor ?? null, direction: backwards ? 'asc' : 'desc' },
        // the page shows no total: counting would read every charge the filter keeps
        { countTotal: false },
      ),
    );
    const base = { ...shown };
    delete base.cursor;
    delete base.direction;
    const { page, nextQuery, previousQuery } = keysetPage(rows, q.cursor, backwards, base);
    return send(
      reply,
      200,
      paymentListPage(ctx, { rows: page, stores: storeOptions, query: shown, nextQuery, previousQuery }),
    );
  }

  /**
   * The list's current filter (its page and direction aside) as CSV, streamed: keyset pages of
   * EXPORT_PAGE rows read one after the other as the client takes them (backpressure through the
   * stream), so an export of any size holds one page. Values a spreadsheet would run as a formula
   * are escaped. A bad filter is the list's 400 page; another merchant's store a 404.
   */
  @Get('payments/export.csv')
  @Requires('payments:read')
  async export(
    @CurrentSession() session: ConsoleSession,
    @Query() query: Record<string, string>,
    @Req() request: FastifyRequest,
    @Res() reply: FastifyReply,
  ) {
    const parsed = paymentListQuery.safeParse(query);
    if (!parsed.success) {
      const page = refusedFilterPage(pageContext(request, this.sessions), stringsOf(query), [], parsed.error);
      return send(reply, 400, page);
    }
    const q = parsed.data;
    const scope = { merchantId: session.user.merchantId, storeId: null };
    const pages = this.charges.pages(scope, q.store ?? null, filtersOf(q, modeOf(request)), EXPORT_PAGE);
    // the first page before the answer's head: a store not the merchant's is a 404 page, not a CSV
    const first = await listedOrMissing(pages.next());
    async function* records() {
      let current = first;
      while (!current.done) {
        for (const charge of current.value) yield csvRecord(charge);
        current = await pages.next();
      }
    }
    const csv = Readable.from(records()).pipe(
      stringify({ header: true, columns: [...EXPORT_COLUMNS], escape_formulas: true }),
    );
    const day = new Date().toISOString().slice(0, 10);
    return reply
      .status(200)
      .type('text/csv; charset=utf-8')
      .header('content-disposition', `attachment; filename="payments-${modeOf(request)}-${day}.csv"`)
      .send(csv);
  }

  @Get('payments/:id')
  @Requires('payments:read')
  async show(
    @CurrentSession() session: ConsoleSession,
    @Param('id') id: string,
    @Req() request: FastifyRequest,
    @Res() reply: FastifyReply,
  ) {
    const query = request.query as Record<string, unknown>;
    const ctx = pageContext(request, this.sessions);
    const charge = await this.chargeOf(session, id, request);
    return send(
      reply,
      200,
      await this.renderPayment(
        session,
        charge,
        request,
        query.refunded !== undefined
          ? ctx.m.refundDone
          : query.captured !== undefined
            ? ctx.m.captureDone
            : query.canceled !== undefined
              ? ctx.m.cancelDone
              : undefined,
      ),
    );
  }

  @Post('payments/:id/refunds')
  @Requires('payments:refund')
  async refund(
    @CurrentSession() session: ConsoleSession,
    @Param('id') id: string,
    @Body() body: unknown,
    @Req() request: FastifyRequest,
    @Res() reply: FastifyReply,
  ) {
    return this.write(session, id, body, request, reply, REFUND, (charge, form) => {
      const currency = charge.chargedCurrency ?? charge.requestedCurrency;
      const amount = minorAmount(form.amount, currency);
      if (amount === null || amount < 1n) return null;
      const detail = {
        amount: amount.toString(),
        currency,
        reason: form.reason ?? null,
        charge_id: charge.id,
      };
      const audit = auditOf(
        session,
        request,
        chargeWrite(charge, 'refund.create', 'refund', form.refund_id),
        detail,
      );
      return () =>
        this.refunds.create(
          { merchantId: charge.merchantId, storeId: charge.storeId },
          charge.id,
          { amount: Number(amount), currency, reason: form.reason ?? null, message: form.message ?? null },
          { correlationId: request.id },
          { id: form.refund_id, audit },
        );
    });
  }

  /**
   * A capture of an authorized charge, partial or whole: ChargesService.capture, the use case of
   * POST /stores/{storeId}/charges/{id}/capture (its bounds, currency rule, the live processor's
   * partial-capture refusal, the capture_requested command), with the audit row in its transaction.
   * A charge has one capture: the same form sent again is refused ALREADY_CAPTURED, writing nothing.
   */
  @Post('payments/:id/capture')
  @Requires('payments:capture')
  async capture(
    @CurrentSession() session: ConsoleSession,
    @Param('id') id: string,
    @Body() body: unknown,
    @Req() request: FastifyRequest,
    @Res() reply: FastifyReply,
  ) {
    return this.write(session, id, body, request, reply, CAPTURE, (charge, form) => {
      const currency = charge.requestedCurrency;
      const amount = minorAmount(form.amount, currency);
      if (amount === null || amount < 1n) return null;
      const detail = { amount: amount.toString(), currency, charge_id: charge.id };
      // the capture's id is the write's own: the audit row takes it there
      const audit = auditOf(
        session,
        request,
        chargeWrite(charge, 'charge.capture', 'capture', charge.id),
        detail,
      );
      return () =>
        this.charges.capture(
          charge,
          { amount: Number(amount), currency },
          { correlationId: request.id },
          { audit },
        );
    });
  }

  /**
   * A cancel of an authorized or awaiting charge: CancelsService.create, the use case of
   * POST /stores/{storeId}/charges/{id}/cancels, with the audit row in its transaction. The form
   * carries a cancel id drawn with the page: sending it twice cancels once.
   */
  @Post('payments/:id/cancel')
  @Requires('payments:cancel')
  async cancel(
    @CurrentSession() session: ConsoleSession,
    @Param('id') id: string,
    @Body() body: unknown,
    @Req() request: FastifyRequest,
    @Res() reply: FastifyReply,
  ) {
    return this.write(session, id, body, request, reply, CANCEL, (charge, form) => {
      const write = chargeWrite(charge, 'charge.cancel', 'cancel', form.cancel_id);
      const audit = auditOf(session, request, write, { charge_id: charge.id });
      return () =>
        this.cancels.create(
          { merchantId: charge.merchantId, storeId: charge.storeId },
          charge.id,
          {},
          { correlationId: request.id },
          { id: form.cancel_id, audit },
        );
    });
  }

  @Post('mode')
  @Requires('payments:read')
  mode(@Body() body: unknown, @Res() reply: FastifyReply) {
    const parsed = modeForm.safeParse(body);
    const mode = parsed.success ? parsed.data.mode : 'test';
    void reply.setCookie(MODE_COOKIE, mode, cookieOptions(this.config, 365 * 86_400));
    return reply.redirect('/payments', 303);
  }

  /**
   * A write on the merchant's charge `id` from a form: `prepare` reads the parsed form and gives the
   * use case's call, or null for a form the schema took but the charge does not (an amount). A bad form
   * is the payment's page with VALIDATION_ERROR, the use case's refusal that page with its code and
   * reasons (both 400); done, the page again with the action's notice (303).
   */
  private async write<F>(
    session: ConsoleSession,
    id: string,
    body: unknown,
    request: FastifyRequest,
    reply: FastifyReply,
    action: ChargeAction<F>,
    prepare: (charge: Charge, form: F) => (() => Promise<unknown>) | null,
  ) {
    const what = pageContext(request, this.sessions).m[action.refused];
    const charge = await this.chargeOf(session, id, request);
    const parsed = action.form.safeParse(body);
    const run = parsed.success ? prepare(charge, parsed.data) : null;
    if (run === null) {
      const page = await this.renderPayment(session, charge, request, undefined, `${what}: VALIDATION_ERROR`);
      return send(reply, 400, page);
    }
    const refusal = await refusalOfWrite(run, what);
    if (refusal !== null)
      return send(reply, 400, await this.renderPayment(session, charge, request, undefined, refusal));
    return reply.redirect(`/payments/${charge.id}?${action.done}`, 303);
  }

  /** The merchant's charge `id` in the mode the switch shows; any other id is a missing page. */
  private async chargeOf(session: ConsoleSession, id: string, request: FastifyRequest): Promise<Charge> {
    if (!isUuid(id)) throw new NotFoundError('charge');
    const charge = await this.charges.find({ merchantId: session.user.merchantId, storeId: null }, id);
    if (charge.mode !== modeOf(request)) throw new NotFoundError('charge');
    return charge;
  }

  private async renderPayment(
    session: ConsoleSession,
    charge: Charge,
    request: FastifyRequest,
    notice?: string,
    error?: string,
  ): Promise<string> {
    const scope = { merchantId: charge.merchantId, storeId: charge.storeId };
    const [{ rows: refunds }, cancels, capture, token] = await Promise.all([
      this.refunds.list(scope, charge.id, { limit: REFUNDS_SHOWN, cursor: null, direction: 'desc' }),
      this.cancels.list(scope, charge.id, { limit: REFUNDS_SHOWN, cursor: null, direction: 'desc' }),
      this.captures.findByCharge(charge.id),
      this.tokens.findInStore(charge.merchantId, charge.storeId, charge.transactionTokenId),
    ]);
    const events = await this.outbox.ofAggregates(
      charge.merchantId,
      [charge.id, ...refunds.map((r) => r.id), ...cancels.map((c) => c.id), ...(capture ? [capture.id] : [])],
      TIMELINE_LIMIT,
    );
    const role = session.user.role;
    return paymentPage(pageContext(request, this.sessions), {
      charge,
      paymentType: token?.paymentType ?? '—',
      email: token?.email ?? null,
      refunds: refunds.slice(0, REFUNDS_SHOWN),
      events,
      canRefund: may(role, 'payments:refund'),
      refundId: randomUUID(),
      capture,
      // the actions the charge's state allows now (the use case decides again on the write)
      canCapture:
        may(role, 'payments:capture') &&
        charge.status === CAPTURABLE_CHARGE_STATUS &&
        charge.pendingOperation === null,
      canCancel:
        may(role, 'payments:cancel') &&
        (CANCELLABLE_CHARGE_STATUSES as readonly string[]).includes(charge.status) &&
        charge.pendingOperation === null,
      cancelId: randomUUID(),
      notice,
      error,
    });
  }
}

/** The audit row's fields of a console write on `charge`. */
function chargeWrite(charge: Charge, action: string, targetType: string, targetId: string) {
  return { action, targetType, targetId, mode: charge.mode };
}

/** A charge as a row of the CSV export. */
function csvRecord(charge: ChargeListItem): Record<(typeof EXPORT_COLUMNS)[number], string> {
  return {
    id: charge.id,
    created_on: charge.createdOn.toISOString(),
    status: charge.status,
    mode: charge.mode,
    store_id: charge.storeId,
    store_name: charge.store.name,
    requested_amount: charge.requestedAmount.toString(),
    requested_currency: charge.requestedCurrency,
    charged_amount: charge.chargedAmount?.toString() ?? '',
    charged_currency: charge.chargedCurrency ?? '',
    transaction_token_id: charge.transactionTokenId,
    metadata: JSON.stringify(charge.metadata ?? {}),
    email: charge.transactionToken.email ?? '',
    payment_type: charge.transactionToken.paymentType,
  };
}

function filtersOf(q: PaymentListQuery, mode: 'test' | 'live') {
  const day = (date: string) => new Date(`${date}T00:00:00Z`);
  return {
    mode,
    ...(q.status ? { status: q.status } : {}),
    ...(q.payment_type ? { paymentType: q.payment_type } : {}),
    ...(q.from ? { from: day(q.from) } : {}),
    // `to` is the last day shown: charges before the next day
    ...(q.to ? { to: new Date(day(q.to).getTime() + 86_400_000) } : {}),
    ...(q.amount_from !== undefined ? { amountFrom: BigInt(q.amount_from) } : {}),
    ...(q.amount_to !== undefined ? { amountTo: BigInt(q.amount_to) } : {}),
    ...(q.email ? { email: q.email } : {}),
    ...(q.last_four ? { cardLastFour: q.last_four } : {}),
    ...(q.metadata_key !== undefined && q.metadata_value !== undefined
      ? { metadata: { key: q.metadata_key, value: q.metadata_value } }
      : {}),
  };
}

/** The list's page for a filter its schema refused: the filter shown back, the fields named, no rows. */
function refusedFilterPage(
  ctx: PageContext,
  shown: Record<string, string>,
  stores: { id: string; name: string }[],
  error: z.ZodError,
): string {
  const refusal = `${ctx.m.filters}: ${badFields(error)}`;
  return paymentListPage(ctx, {
    rows: [],
    stores,
    query: shown,
    nextQuery: null,
    previousQuery: null,
    error: refusal,
  });
}

/** The query's single string values (a repeated parameter keeps its first). */
function stringsOf(query: Record<string, unknown>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(query ?? {})) {
    const first: unknown = Array.isArray(value) ? value[0] : value;
    if (typeof first === 'string' && first !== '') out[key] = first;
  }
  return out;
}
