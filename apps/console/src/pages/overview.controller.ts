import { Controller, Get, Query, Req, Res } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { ValidationError } from '@kessai/domain';
import { PaymentOverviewService } from '@kessai/payments';
import { ConsoleSessions, type ConsoleSession } from '../session/console-sessions';
import { CurrentSession, Requires } from '../session/decorators';
import { overviewPage } from '../views/overview';
import { badFields, send } from './page-replies';
import { modeOf, pageContext } from './request-context';

const blankAsUndefined = (value: unknown) => (value === '' ? undefined : value);
const day = z.preprocess(
  blankAsUndefined,
  z
    .string()
    .regex(/^\d{4}-\d{2}-\d{2}$/)
    .optional(),
);
/** The overview's range in the URL: calendar days of the merchant's time zone, both optional. */
const overviewQuery = z.object({ from: day, to: day });

/**
 * The overview (docs/console.md, "Overview"), every role: PaymentOverviewService's days and balances
 * for the range in the URL, in the mode the switch shows. A range the schema or the use case
 * refuses is the page again, 400, naming the field.
 */
@Controller()
export class OverviewController {
  constructor(
    private readonly sessions: ConsoleSessions,
    private readonly overview: PaymentOverviewService,
  ) {}

  @Get('overview')
  @Requires('payments:read')
  async show(
    @CurrentSession() session: ConsoleSession,
    @Query() query: Record<string, unknown>,
    @Req() request: FastifyRequest,
    @Res() reply: FastifyReply,
  ) {
    const ctx = pageContext(request, this.sessions);
    const asked = {
      from: typeof query.from === 'string' ? query.from : undefined,
      to: typeof query.to === 'string' ? query.to : undefined,
    };
    const refused = (fields: string) =>
      send(
        reply,
        400,
        overviewPage(ctx, { overview: null, query: asked, error: `${ctx.m.rangeError}: ${fields}` }),
      );
    const parsed = overviewQuery.safeParse(query);
    if (!parsed.success) return refused(badFields(parsed.error));
    try {
      const overview = await this.overview.read({
        merchantId: session.user.merchantId,
        mode: modeOf(request),
        ...parsed.data,
      });
      return send(reply, 200, overviewPage(ctx, { overview, query: asked }));
    } catch (error) {
      if (!(error instanceof ValidationError)) throw error;
      return refused(error.errors.map((e) => `${e.field ?? ''} ${e.reason}`.trim()).join(', '));
    }
  }
}
