import { Body, Controller, Get, Param, Post, Query, Req, Res } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { ChargesService } from '@kessai/payments';
import { ScheduledPaymentsService, SubscriptionsService } from '@kessai/subscriptions';
import type { SubscriptionWithNextPayment } from '@kessai/db';
import {
  isFinalSubscriptionStatus,
  isUuid,
  NotFoundError,
  PAGE_LIMIT_DEFAULT,
  SUBSCRIPTION_STATUSES,
  SUSPENDABLE_SUBSCRIPTION_STATUSES,
} from '@kessai/domain';
import { may } from '../roles';
import { ConsoleSessions, type ConsoleSession } from '../session/console-sessions';
import { CurrentSession, Requires } from '../session/decorators';
import { subscriptionListPage, subscriptionPage } from '../views/subscriptions';
import { auditOf, badFields, keysetPage, listedOrMissing, refusalOfWrite, send } from './page-replies';
import { modeOf, pageContext } from './request-context';

/** The payments and charges a subscription's page lists (its newest). */
const SHOWN = 50;

const blankAsUndefined = (value: unknown) => (value === '' ? undefined : value);
const listQuery = z.object({
  status: z.preprocess(blankAsUndefined, z.enum(SUBSCRIPTION_STATUSES).optional()),
  cursor: z.preprocess(blankAsUndefined, z.string().uuid().optional()),
  direction: z.preprocess(blankAsUndefined, z.enum(['next', 'previous']).optional()),
});
const ACTIONS = ['suspend', 'unsuspend', 'cancel'] as const;
type Action = (typeof ACTIONS)[number];

/**
 * The subscriptions pages (docs/console.md): the list (status filter in the URL, keyset pages), a
 * subscription with its scheduled payments and charges, and suspend / unsuspend / cancel through
 * SubscriptionsService, the use cases of PATCH …/suspend, PATCH …/unsuspend and DELETE …, each with
 * the console's audit row in its transaction.
 */
@Controller()
export class SubscriptionsController {
  constructor(
    private readonly sessions: ConsoleSessions,
    private readonly subscriptions: SubscriptionsService,
    private readonly payments: ScheduledPaymentsService,
    private readonly charges: ChargesService,
  ) {}

  @Get('subscriptions')
  @Requires('payments:read')
  async list(
    @CurrentSession() session: ConsoleSession,
    @Query() query: Record<string, unknown>,
    @Req() request: FastifyRequest,
    @Res() reply: FastifyReply,
  ) {
    const ctx = pageContext(request, this.sessions);
    const parsed = listQuery.safeParse(query);
    const status = typeof query.status === 'string' ? query.status : '';
    if (!parsed.success) {
      const error = `${ctx.m.filters}: ${badFields(parsed.error)}`;
      const page = subscriptionListPage(ctx, {
        rows: [],
        status,
        nextQuery: null,
        previousQuery: null,
        error,
      });
      return send(reply, 400, page);
    }
    const q = parsed.data;
    const backwards = q.direction === 'previous';
    const scope = { merchantId: session.user.merchantId, storeId: null };
    const { rows } = await listedOrMissing(
      this.subscriptions.list(
        scope,
        null,
        { mode: modeOf(request), ...(q.status ? { statuses: [q.status] } : {}) },
        { limit: PAGE_LIMIT_DEFAULT, cursor: q.cursor ?? null, direction: backwards ? 'asc' : 'desc' },
      ),
    );
    const base: Record<string, string> = q.status ? { status: q.status } : {};
    const { page, nextQuery, previousQuery } = keysetPage(rows, q.cursor, backwards, base);
    return send(reply, 200, subscriptionListPage(ctx, { rows: page, status, nextQuery, previousQuery }));
  }

  @Get('subscriptions/:id')
  @Requires('payments:read')
  async show(
    @CurrentSession() session: ConsoleSession,
    @Param('id') id: string,
    @Req() request: FastifyRequest,
    @Res() reply: FastifyReply,
  ) {
    const subscription = await this.subscriptionOf(session, id, request);
    const query = request.query as Record<string, unknown>;
    const done = ACTIONS.find((action) => query[`${action}ed`] !== undefined || query[action] !== undefined);
    return send(reply, 200, await this.render(session, subscription, request, done));
  }

  @Post('subscriptions/:id/suspend')
  @Requires('subscriptions:manage')
  suspend(
    @CurrentSession() session: ConsoleSession,
    @Param('id') id: string,
    @Body() _body: unknown,
    @Req() request: FastifyRequest,
    @Res() reply: FastifyReply,
  ) {
    return this.act('suspend', session, id, request, reply);
  }

  @Post('subscriptions/:id/unsuspend')
  @Requires('subscriptions:manage')
  unsuspend(
    @CurrentSession() session: ConsoleSession,
    @Param('id') id: string,
    @Body() _body: unknown,
    @Req() request: FastifyRequest,
    @Res() reply: FastifyReply,
  ) {
    return this.act('unsuspend', session, id, request, reply);
  }

  @Post('subscriptions/:id/cancel')
  @Requires('subscriptions:manage')
  cancel(
    @CurrentSession() session: ConsoleSession,
    @Param('id') id: string,
    @Body() _body: unknown,
    @Req() request: FastifyRequest,
    @Res() reply: FastifyReply,
  ) {
    return this.act('cancel', session, id, request, reply);
  }

  /** One of the three moves, through the API's use case; its refusal is the page again (400). */
  private async act(
    action: Action,
    session: ConsoleSession,
    id: string,
    request: FastifyRequest,
    reply: FastifyReply,
  ) {
    const subscription = await this.subscriptionOf(session, id, request);
    const scope = { merchantId: subscription.merchantId, storeId: subscription.storeId };
    const correlation = { correlationId: request.id };
    const write = {
      action: `subscription.${action}`,
      targetType: 'subscription',
      targetId: subscription.id,
      mode: subscription.mode,
    };
    const audit = auditOf(session, request, write, { from: subscription.status });
    const refusal = await refusalOfWrite(async () => {
      if (action === 'suspend')
        await this.subscriptions.suspend(scope, subscription.id, {}, correlation, { audit });
      else if (action === 'unsuspend')
        await this.subscriptions.unsuspend(scope, subscription.id, correlation, { audit });
      else await this.subscriptions.cancel(scope, subscription.id, correlation, { audit });
    }, pageContext(request, this.sessions).m.subscriptionRefused);
    if (refusal !== null)
      return send(reply, 400, await this.render(session, subscription, request, undefined, refusal));
    return reply.redirect(`/subscriptions/${subscription.id}?${action}`, 303);
  }

  /** The merchant's subscription `id` in the mode the switch shows; any other id is a missing page. */
  private async subscriptionOf(
    session: ConsoleSession,
    id: string,
    request: FastifyRequest,
  ): Promise<SubscriptionWithNextPayment> {
    if (!isUuid(id)) throw new NotFoundError('subscription');
    const subscription = await this.subscriptions.find(
      { merchantId: session.user.merchantId, storeId: null },
      id,
    );
    if (subscription.mode !== modeOf(request)) throw new NotFoundError('subscription');
    return subscription;
  }

  private async render(
    session: ConsoleSession,
    subscription: SubscriptionWithNextPayment,
    request: FastifyRequest,
    done?: Action,
    error?: string,
  ): Promise<string> {
    const scope = { merchantId: subscription.merchantId, storeId: subscription.storeId };
    const [{ rows: payments }, { rows: charges }] = await Promise.all([
      this.payments.list(subscription, { limit: SHOWN, cursor: null, direction: 'desc' }),
      this.charges.list(
        scope,
        null,
        { mode: subscription.mode, subscriptionId: subscription.id },
        { limit: SHOWN, cursor: null, direction: 'desc' },
      ),
    ]);
    const manage = may(session.user.role, 'subscriptions:manage');
    const status = subscription.status;
    return subscriptionPage(pageContext(request, this.sessions), {
      subscription,
      payments: payments.slice(0, SHOWN),
      charges: charges.slice(0, SHOWN),
      // the moves its status allows now (the use case decides again on the write)
      actions: manage
        ? ACTIONS.filter((action) =>
            action === 'suspend'
              ? SUSPENDABLE_SUBSCRIPTION_STATUSES.includes(status)
              : action === 'unsuspend'
                ? status === 'suspended'
                : !isFinalSubscriptionStatus(status),
          )
        : [],
      done,
      error,
    });
  }
}
