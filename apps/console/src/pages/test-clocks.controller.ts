import { Body, Controller, Get, Param, Post, Req, Res } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import type { TestClockWithStatus } from '@kessai/db';
import { NotFoundError } from '@kessai/domain';
import { TestClocksService, type TestClockOwner } from '@kessai/subscriptions';
import { may } from '../roles';
import { ConsoleSessions, type ConsoleSession } from '../session/console-sessions';
import { CurrentSession, Requires } from '../session/decorators';
import { testClockListPage, testClockPage } from '../views/test-clocks';
import { auditOf, badFields, refusalOfWrite, send } from './page-replies';
import { modeOf, pageContext } from './request-context';

/** The clocks the list shows (the newest). */
const SHOWN = 50;

const blankAsUndefined = (value: unknown) => (value === '' ? undefined : value);
/** An ISO 8601 instant with its offset, as the API's frozen_time. */
const instant = z
  .string()
  .trim()
  .datetime({ offset: true })
  .transform((v) => new Date(v))
  .refine((at) => Number.isFinite(at.getTime()));
const createForm = z.object({
  frozen_time: instant,
  name: z.preprocess(blankAsUndefined, z.string().trim().min(1).max(100).optional()),
});
const advanceForm = z.object({ frozen_time: instant });

const fieldOf = (body: unknown, name: string): string | undefined => {
  const value = body && typeof body === 'object' ? (body as Record<string, unknown>)[name] : undefined;
  return typeof value === 'string' ? value : undefined;
};

/**
 * Test clocks on the subscriptions pages (docs/console.md, "Test clocks"), test mode only: the list
 * and a clock (every role reads), create and advance (owner and admin) through TestClocksService,
 * the use cases of POST /test_clocks and POST /test_clocks/{id}/advance, each with the console's
 * audit row in its transaction. Live mode shows none; a write in live mode is refused
 * (TestClocksService.ownerOf, 403) before anything runs.
 */
@Controller()
export class TestClocksController {
  constructor(
    private readonly sessions: ConsoleSessions,
    private readonly clocks: TestClocksService,
  ) {}

  @Get('subscriptions/test-clocks')
  @Requires('payments:read')
  async list(
    @CurrentSession() session: ConsoleSession,
    @Req() request: FastifyRequest,
    @Res() reply: FastifyReply,
  ) {
    const deleted = (request.query as Record<string, unknown>).deleted !== undefined;
    return send(reply, 200, await this.renderList(session, request, undefined, undefined, deleted));
  }

  @Post('subscriptions/test-clocks')
  @Requires('subscriptions:manage')
  async create(
    @CurrentSession() session: ConsoleSession,
    @Body() body: unknown,
    @Req() request: FastifyRequest,
    @Res() reply: FastifyReply,
  ) {
    const owner = this.ownerOf(session, request);
    const ctx = pageContext(request, this.sessions);
    const form = { frozen_time: fieldOf(body, 'frozen_time'), name: fieldOf(body, 'name') };
    const parsed = createForm.safeParse(body);
    if (!parsed.success) {
      const error = `${ctx.m.testClockRefused}: ${badFields(parsed.error)}`;
      return send(reply, 400, await this.renderList(session, request, form, error));
    }
    const write = {
      action: 'test_clock.create',
      targetType: 'test_clock',
      targetId: '',
      mode: 'test' as const,
    };
    const detail = { frozen_time: parsed.data.frozen_time.toISOString(), name: parsed.data.name ?? null };
    const audit = auditOf(session, request, write, detail);
    const clock = await this.clocks.create(owner, parsed.data, { audit });
    return reply.redirect(`/subscriptions/test-clocks/${clock.id}?created`, 303);
  }

  @Get('subscriptions/test-clocks/:id')
  @Requires('payments:read')
  async show(
    @CurrentSession() session: ConsoleSession,
    @Param('id') id: string,
    @Req() request: FastifyRequest,
    @Res() reply: FastifyReply,
  ) {
    // live mode has no test clocks: any id is a missing page there
    if (modeOf(request) !== 'test') throw new NotFoundError('test_clock');
    const clock = await this.clocks.find(this.ownerOf(session, request), id);
    const query = request.query as Record<string, unknown>;
    const done =
      query.created !== undefined ? 'created' : query.advanced !== undefined ? 'advanced' : undefined;
    return send(reply, 200, this.renderClock(session, request, clock, { done }));
  }

  @Post('subscriptions/test-clocks/:id/advance')
  @Requires('subscriptions:manage')
  async advance(
    @CurrentSession() session: ConsoleSession,
    @Param('id') id: string,
    @Body() body: unknown,
    @Req() request: FastifyRequest,
    @Res() reply: FastifyReply,
  ) {
    const owner = this.ownerOf(session, request);
    const clock = await this.clocks.find(owner, id);
    const ctx = pageContext(request, this.sessions);
    const advanceTo = fieldOf(body, 'frozen_time');
    const parsed = advanceForm.safeParse(body);
    if (!parsed.success) {
      const error = `${ctx.m.testClockRefused}: ${badFields(parsed.error)}`;
      return send(reply, 400, this.renderClock(session, request, clock, { advanceTo, error }));
    }
    const write = {
      action: 'test_clock.advance',
      targetType: 'test_clock',
      targetId: clock.id,
      mode: 'test' as const,
    };
    const detail = { from: clock.frozenTime.toISOString(), to: parsed.data.frozen_time.toISOString() };
    const refusal = await refusalOfWrite(
      () =>
        this.clocks.advance(owner, clock, parsed.data, { audit: auditOf(session, request, write, detail) }),
      ctx.m.testClockRefused,
    );
    if (refusal !== null)
      return send(reply, 400, this.renderClock(session, request, clock, { advanceTo, error: refusal }));
    return reply.redirect(`/subscriptions/test-clocks/${clock.id}?advanced`, 303);
  }

  /**
   * Deletes the clock, TestClocksService.delete, the use case of DELETE /test_clocks/{id}: its
   * subscriptions that are not final are canceled with their events, and the audit row (how many
   * were canceled) shares the transaction. Back to the list, which no longer shows it.
   */
  @Post('subscriptions/test-clocks/:id/delete')
  @Requires('subscriptions:manage')
  async delete(
    @CurrentSession() session: ConsoleSession,
    @Param('id') id: string,
    @Req() request: FastifyRequest,
    @Res() reply: FastifyReply,
  ) {
    const owner = this.ownerOf(session, request);
    const clock = await this.clocks.find(owner, id);
    const write = {
      action: 'test_clock.delete',
      targetType: 'test_clock',
      targetId: clock.id,
      mode: 'test' as const,
    };
    const detail = { name: clock.name, frozen_time: clock.frozenTime.toISOString() };
    await this.clocks.delete(
      owner,
      clock.id,
      { correlationId: request.id },
      {
        audit: auditOf(session, request, write, detail),
      },
    );
    return reply.redirect('/subscriptions/test-clocks?deleted', 303);
  }

  /** The session's merchant as a clock owner in the switch's mode: live mode is refused (403). */
  private ownerOf(session: ConsoleSession, request: FastifyRequest): TestClockOwner {
    return this.clocks.ownerOf({ merchantId: session.user.merchantId, mode: modeOf(request) });
  }

  private async renderList(
    session: ConsoleSession,
    request: FastifyRequest,
    form?: { frozen_time?: string; name?: string },
    error?: string,
    deleted = false,
  ): Promise<string> {
    const ctx = pageContext(request, this.sessions);
    const manage = may(session.user.role, 'subscriptions:manage');
    if (modeOf(request) !== 'test') return testClockListPage(ctx, { rows: null, manage: false });
    const { rows } = await this.clocks.list(this.ownerOf(session, request), {
      limit: SHOWN,
      cursor: null,
      direction: 'desc',
    });
    return testClockListPage(ctx, { rows: rows.slice(0, SHOWN), manage, form, error, deleted });
  }

  private renderClock(
    session: ConsoleSession,
    request: FastifyRequest,
    clock: TestClockWithStatus,
    options: { done?: 'created' | 'advanced'; advanceTo?: string; error?: string },
  ): string {
    const manage = may(session.user.role, 'subscriptions:manage');
    return testClockPage(pageContext(request, this.sessions), { clock, manage, ...options });
  }
}
