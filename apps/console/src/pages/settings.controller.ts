import { Body, Controller, Get, Param, Post, Query, Req, Res } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { MerchantUsersService, PasswordResetService } from '@kessai/accounts';
import { ConsoleAuditRepository, MerchantUsersRepository } from '@kessai/db';
import { ConsoleSessions, type ConsoleSession } from '../session/console-sessions';
import { CurrentSession, Requires } from '../session/decorators';
import { auditPage, usersPage } from '../views/settings';
import { auditOf, badFields, refusalOfWrite, send } from './page-replies';
import { modeOf, pageContext } from './request-context';
import { roleForm, userForm, USER_ROLES } from './settings.schemas';

/** The audit log's rows a page shows: the merchant's newest. */
const AUDIT_SHOWN = 200;

/**
 * Settings (docs/console.md): the audit log of the merchant's console writes (owner and admin), and
 * users and roles (owner): add a user (MerchantUsersService.invite, then the password reset email
 * of POST /password_resets, through which the person sets a password) and change another user's
 * role (MerchantUsersService.changeRole: never one's own, and always an owner left), and remove
 * another user (MerchantUsersService.remove, the same rules), each with its audit row in its
 * transaction.
 */
@Controller()
export class SettingsController {
  constructor(
    private readonly sessions: ConsoleSessions,
    private readonly audit: ConsoleAuditRepository,
    private readonly users: MerchantUsersRepository,
    private readonly merchantUsers: MerchantUsersService,
    private readonly passwordResets: PasswordResetService,
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
      this.users.listOfMerchant(merchantId, { includeRemoved: true }),
    ]);
    const emails = new Map(users.map((user) => [user.id, user.email]));
    return send(reply, 200, auditPage(pageContext(request, this.sessions), { rows, emails }));
  }

  @Get('settings/users')
  @Requires('users:manage')
  async listUsers(
    @CurrentSession() session: ConsoleSession,
    @Query() query: Record<string, unknown>,
    @Req() request: FastifyRequest,
    @Res() reply: FastifyReply,
  ) {
    const m = pageContext(request, this.sessions).m;
    const notice =
      query.added !== undefined
        ? m.userAdded
        : query.changed !== undefined
          ? m.roleChanged
          : query.removed !== undefined
            ? m.userRemoved
            : undefined;
    return send(reply, 200, await this.renderUsers(session, request, { notice }));
  }

  @Post('settings/users')
  @Requires('users:manage')
  async addUser(
    @CurrentSession() session: ConsoleSession,
    @Body() body: unknown,
    @Req() request: FastifyRequest,
    @Res() reply: FastifyReply,
  ) {
    const m = pageContext(request, this.sessions).m;
    const parsed = userForm.safeParse(body);
    if (!parsed.success)
      return this.refused(session, request, reply, `${m.userRefused}: ${badFields(parsed.error)}`);
    const form = parsed.data;
    const write = { action: 'user.create', targetType: 'merchant_user', targetId: '', mode: modeOf(request) };
    const audit = auditOf(session, request, write, { email: form.email, role: form.role });
    const refusal = await refusalOfWrite(
      () => this.merchantUsers.invite({ merchantId: session.user.merchantId, ...form }, { audit }),
      m.userRefused,
    );
    if (refusal !== null) return this.refused(session, request, reply, refusal);
    // the person sets a password through the reset email (quota and delivery as POST /password_resets)
    const noMail = await refusalOfWrite(
      () => this.passwordResets.request(form.email, { correlationId: request.id }),
      m.userAddedNoMail,
    );
    if (noMail !== null) return send(reply, 200, await this.renderUsers(session, request, { error: noMail }));
    return reply.redirect('/settings/users?added', 303);
  }

  @Post('settings/users/:id/role')
  @Requires('users:manage')
  async changeRole(
    @CurrentSession() session: ConsoleSession,
    @Param('id') id: string,
    @Body() body: unknown,
    @Req() request: FastifyRequest,
    @Res() reply: FastifyReply,
  ) {
    const m = pageContext(request, this.sessions).m;
    const parsed = roleForm.safeParse(body);
    if (!parsed.success)
      return this.refused(session, request, reply, `${m.userRefused}: ${badFields(parsed.error)}`);
    const write = { action: 'user.role', targetType: 'merchant_user', targetId: '', mode: modeOf(request) };
    const audit = auditOf(session, request, write, { role: parsed.data.role });
    const actor = { merchantId: session.user.merchantId, userId: session.user.id };
    const refusal = await refusalOfWrite(
      () => this.merchantUsers.changeRole(actor, id, parsed.data.role, { audit }),
      m.userRefused,
    );
    if (refusal !== null) return this.refused(session, request, reply, refusal);
    return reply.redirect('/settings/users?changed', 303);
  }

  /**
   * Removes another user of the merchant (MerchantUsersService.remove: never oneself, never the last
   * owner): its sessions end at once, it signs in no more; the audit row in the same transaction.
   */
  @Post('settings/users/:id/remove')
  @Requires('users:manage')
  async removeUser(
    @CurrentSession() session: ConsoleSession,
    @Param('id') id: string,
    @Req() request: FastifyRequest,
    @Res() reply: FastifyReply,
  ) {
    const m = pageContext(request, this.sessions).m;
    const write = { action: 'user.remove', targetType: 'merchant_user', targetId: '', mode: modeOf(request) };
    const actor = { merchantId: session.user.merchantId, userId: session.user.id };
    const refusal = await refusalOfWrite(async () => {
      // the detail names whom: read in the same merchant first (another merchant's user is not found)
      const target = (await this.users.listOfMerchant(actor.merchantId)).find((user) => user.id === id);
      const audit = auditOf(
        session,
        request,
        write,
        target ? { email: target.email, role: target.role } : {},
      );
      await this.merchantUsers.remove(actor, id, { audit });
    }, m.userRefused);
    if (refusal !== null) return this.refused(session, request, reply, refusal);
    return reply.redirect('/settings/users?removed', 303);
  }

  private async refused(
    session: ConsoleSession,
    request: FastifyRequest,
    reply: FastifyReply,
    error: string,
  ) {
    return send(reply, 400, await this.renderUsers(session, request, { error }));
  }

  private async renderUsers(
    session: ConsoleSession,
    request: FastifyRequest,
    messages: { notice?: string; error?: string },
  ): Promise<string> {
    const users = await this.users.listOfMerchant(session.user.merchantId);
    return usersPage(pageContext(request, this.sessions), {
      users,
      selfId: session.user.id,
      roles: USER_ROLES,
      ...messages,
    });
  }
}
