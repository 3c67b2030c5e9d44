import { Body, Controller, Get, Inject, Param, Post, Query, Req, Res } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { randomUUID } from 'node:crypto';
import { Readable } from 'node:stream';
import { stringify } from 'csv-stringify';
import { APP_CONFIG, type AppConfig } from '@kessai/config';
import { CancelsService, ChargesService, RefundsService } from '@kessai/payments';
import {
  CapturesRepository,
  StoresRepository,
  OutboxRepository,
  TransactionTokensRepository,
  type AuditEntry,
  type Charge,
  type ChargeListItem,
} from '@kessai/db';
import {
  CANCELLABLE_CHARGE_STATUSES,
  CAPTURABLE_CHARGE_STATUS,
  DomainError,
  isUuid,
  NotFoundError,
  PAGE_LIMIT_DEFAULT,
} from '@kessai/domain';
import { may } from '../roles';
import { ConsoleSessions, type ConsoleSession } from '../session/console-sessions';
import { cookieOptions, MODE_COOKIE } from '../session/cookies';
import { CurrentSession, Requires } from '../session/decorators';
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
import { modeOf, originOf, pageContext } from './request-context';

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
] as const;

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
      return send(
        reply,
        400,
        paymentListPage(ctx, {
          rows: [],
          stores: storeOptions,
          query: shown,
          nextQuery: null,
          previousQuery: null,
          error: `${ctx.m.filters}: ${badFields(parsed.error)}`,
        }),
      );
    }
    const q = parsed.data;
    const backwards = q.direction === 'previous';
    let rows;
    try {
      ({ rows } = await this.charges.list(scope, q.store ?? null, filtersOf(q, modeOf(request)), {
        limit: PAGE_LIMIT_DEFAULT,
        cursor: q.cursor ?? null,
        direction: backwards ? 'asc' : 'desc',
      }));
    } catch (error) {
      // a cursor or store of another merchant (or none) is a page that does not exist
      if (error instanceof DomainError) throw new NotFoundError('page');
      throw error;
    }
    const more = rows.length > PAGE_LIMIT_DEFAULT;
    const page = rows.slice(0, PAGE_LIMIT_DEFAULT);
    if (backwards) page.reverse();
    const base = { ...shown };
    delete base.cursor;
    delete base.direction;
    const first = page[0];
    const last = page[page.length - 1];
    const hasNext = backwards ? q.cursor !== undefined : more;
    const hasPrevious = backwards ? more : q.cursor !== undefined;
    return send(
      reply,
      200,
      paymentListPage(ctx, {
        rows: page,
        stores: storeOptions,
        query: shown,
        nextQuery: hasNext && last ? new URLSearchParams({ ...base, cursor: last.id }).toString() : null,
        previousQuery:
          hasPrevious && first
            ? new URLSearchParams({ ...base, cursor: first.id, direction: 'previous' }).toString()
            : null,
      }),
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
      const ctx = pageContext(request, this.sessions);
      const page = paymentListPage(ctx, {
        rows: [],
        stores: [],
        query: stringsOf(query),
        nextQuery: null,
        previousQuery: null,
        error: `${ctx.m.filters}: ${badFields(parsed.error)}`,
      });
      return send(reply, 400, page);
    }
    const q = parsed.data;
    const scope = { merchantId: session.user.merchantId, storeId: null };
    const pages = this.charges.pages(scope, q.store ?? null, filtersOf(q, modeOf(request)), EXPORT_PAGE);
    // the first page before the answer's head: a store not the merchant's is a 404 page, not a CSV
    let first: IteratorResult<ChargeListItem[], void>;
    try {
      first = await pages.next();
    } catch (error) {
      if (error instanceof DomainError) throw new NotFoundError('page');
      throw error;
    }
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
    const ctx = pageContext(request, this.sessions);
    const charge = await this.chargeOf(session, id, request);
    const currency = charge.chargedCurrency ?? charge.requestedCurrency;
    const parsed = refundForm.safeParse(body);
    const amount = parsed.success ? minorAmount(parsed.data.amount, currency) : null;
    if (!parsed.success || amount === null || amount < 1n) {
      const page = await this.renderPayment(
        session,
        charge,
        request,
        undefined,
        `${ctx.m.refundRefused}: VALIDATION_ERROR`,
      );
      return send(reply, 400, page);
    }
    const form = parsed.data;
    const detail = { amount: amount.toString(), currency, reason: form.reason ?? null, charge_id: charge.id };
    try {
      await this.refunds.create(
        { merchantId: charge.merchantId, storeId: charge.storeId },
        charge.id,
        { amount: Number(amount), currency, reason: form.reason ?? null, message: form.message ?? null },
        { correlationId: request.id },
        {
          id: form.refund_id,
          audit: auditOf(session, request, charge, 'refund.create', 'refund', form.refund_id, detail),
        },
      );
    } catch (error) {
      return this.refused(error, ctx.m.refundRefused, session, charge, request, reply);
    }
    return reply.redirect(`/payments/${charge.id}?refunded`, 303);
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
    const ctx = pageContext(request, this.sessions);
    const charge = await this.chargeOf(session, id, request);
    const currency = charge.requestedCurrency;
    const parsed = captureForm.safeParse(body);
    const amount = parsed.success ? minorAmount(parsed.data.amount, currency) : null;
    if (amount === null || amount < 1n) {
      const message = `${ctx.m.captureRefused}: VALIDATION_ERROR`;
      return send(reply, 400, await this.renderPayment(session, charge, request, undefined, message));
    }
    const detail = { amount: amount.toString(), currency, charge_id: charge.id };
    try {
      await this.charges.capture(
        charge,
        { amount: Number(amount), currency },
        { correlationId: request.id },
        // the capture's id is the write's own: the audit row takes it there
        { audit: auditOf(session, request, charge, 'charge.capture', 'capture', charge.id, detail) },
      );
    } catch (error) {
      return this.refused(error, ctx.m.captureRefused, session, charge, request, reply);
    }
    return reply.redirect(`/payments/${charge.id}?captured`, 303);
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
    const ctx = pageContext(request, this.sessions);
    const charge = await this.chargeOf(session, id, request);
    const parsed = cancelForm.safeParse(body);
    if (!parsed.success) {
      const message = `${ctx.m.cancelRefused}: VALIDATION_ERROR`;
      return send(reply, 400, await this.renderPayment(session, charge, request, undefined, message));
    }
    const cancelId = parsed.data.cancel_id;
    try {
      await this.cancels.create(
        { merchantId: charge.merchantId, storeId: charge.storeId },
        charge.id,
        {},
        { correlationId: request.id },
        {
          id: cancelId,
          audit: auditOf(session, request, charge, 'charge.cancel', 'cancel', cancelId, {
            charge_id: charge.id,
          }),
        },
      );
    } catch (error) {
      return this.refused(error, ctx.m.cancelRefused, session, charge, request, reply);
    }
    return reply.redirect(`/payments/${charge.id}?canceled`, 303);
  }

  @Post('mode')
  @Requires('payments:read')
  mode(@Body() body: unknown, @Res() reply: FastifyReply) {
    const parsed = modeForm.safeParse(body);
    const mode = parsed.success ? parsed.data.mode : 'test';
    void reply.setCookie(MODE_COOKIE, mode, cookieOptions(this.config, 365 * 86_400));
    return reply.redirect('/payments', 303);
  }

  /** A use case's refusal as the payment's page with its code and reasons (400); anything else is thrown. */
  private async refused(
    error: unknown,
    what: string,
    session: ConsoleSession,
    charge: Charge,
    request: FastifyRequest,
    reply: FastifyReply,
  ) {
    if (error instanceof DomainError && !(error instanceof NotFoundError)) {
      const reasons = error.errors.map((e) => e.reason).filter((r) => r !== error.code);
      const message = `${what}: ${[error.code, ...reasons].join(', ')}`;
      return send(reply, 400, await this.renderPayment(session, charge, request, undefined, message));
    }
    throw error;
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

/** The audit entry of a console write on `charge` by the session's user. */
function auditOf(
  session: ConsoleSession,
  request: FastifyRequest,
  charge: Charge,
  action: string,
  targetType: string,
  targetId: string,
  detail: Record<string, unknown>,
): AuditEntry {
  return {
    merchantId: session.user.merchantId,
    userId: session.user.id,
    sessionId: session.sessionId,
    ...originOf(request),
    action,
    targetType,
    targetId,
    mode: charge.mode,
    detail,
  };
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
  };
}

/** The query parameters a refused filter names. */
function badFields(error: { issues: { path: PropertyKey[] }[] }): string {
  return [...new Set(error.issues.map((issue) => issue.path.map(String).join('.')))].join(', ');
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

/** The query's single string values (a repeated parameter keeps its first). */
function stringsOf(query: Record<string, unknown>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(query ?? {})) {
    const first: unknown = Array.isArray(value) ? value[0] : value;
    if (typeof first === 'string' && first !== '') out[key] = first;
  }
  return out;
}

function send(reply: FastifyReply, status: number, page: string) {
  return reply.status(status).type('text/html; charset=utf-8').send(page);
}
