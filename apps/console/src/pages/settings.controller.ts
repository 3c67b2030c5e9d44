import { Controller, Get, Req, Res } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ConsoleAuditRepository, MerchantUsersRepository } from '@kessai/db';
import { ConsoleSessions, type ConsoleSession } from '../session/console-sessions';
import { CurrentSession, Requires } from '../session/decorators';
import { auditPage } from '../views/settings';
import { send } from './page-replies';
import { pageContext } from './request-context';

/** The audit log's rows a page shows: the merchant's newest. */
const AUDIT_SHOWN = 200;

/** Settings (docs/console.md): the audit log of the merchant's console writes (owner and admin). */
@Controller()
export class SettingsController {
  constructor(
    private readonly sessions: ConsoleSessions,
    private readonly audit: ConsoleAuditRepository,
    private readonly users: MerchantUsersRepository,
  ) {}

  @Get('settings/audit')
  @Requires('audit:read')
  async auditLog(
    @CurrentSession() session: ConsoleSession,
    @Req() request: FastifyRequest,
    @Res() reply: FastifyReply,
  ) {
    const merchantId = session.user.merchantId;
    const [rows, users] = await Promise.all([
      this.audit.list(merchantId, AUDIT_SHOWN),
      this.users.listOfMerchant(merchantId),
    ]);
    const emails = new Map(users.map((user) => [user.id, user.email]));
    return send(reply, 200, auditPage(pageContext(request, this.sessions), { rows, emails }));
  }
}
