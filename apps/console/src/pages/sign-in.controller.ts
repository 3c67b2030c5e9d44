import { Body, Controller, Get, Inject, Post, Req, Res } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { APP_CONFIG, type AppConfig } from '@kessai/config';
import { AuthenticationError, RateLimitedError } from '@kessai/domain';
import { ConsoleSessions, type ConsoleSession } from '../session/console-sessions';
import { clearCookie, cookieOptions, SESSION_COOKIE, SIGN_IN_COOKIE, signedCookie } from '../session/cookies';
import { CurrentSession, PublicPage } from '../session/decorators';
import { signInPage } from '../views/sign-in';
import { pageContext } from './request-context';
import { signInForm } from './payments.schemas';

const SIGN_IN_NONCE_SECONDS = 3_600;

/** Sign-in, sign-out and sign-out everywhere (docs/console.md, "Sessions and CSRF"). */
@Controller()
export class SignInController {
  constructor(
    private readonly sessions: ConsoleSessions,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  @Get()
  @PublicPage()
  home(@Res() reply: FastifyReply) {
    return reply.redirect('/overview', 303);
  }

  @Get('sign-in')
  @PublicPage()
  form(@Req() request: FastifyRequest, @Res() reply: FastifyReply) {
    const notice = request.query && (request.query as Record<string, unknown>).signed_out !== undefined;
    const ctx = pageContext(request, this.sessions);
    return this.answerForm(request, reply, 200, { notice: notice ? ctx.m.signedOut : undefined });
  }

  @Post('sign-in')
  @PublicPage()
  async signIn(@Body() body: unknown, @Req() request: FastifyRequest, @Res() reply: FastifyReply) {
    const ctx = pageContext(request, this.sessions);
    const parsed = signInForm.safeParse(body);
    if (!parsed.success) return this.answerForm(request, reply, 400, { error: ctx.m.signInFailed });
    let session: ConsoleSession;
    try {
      session = await this.sessions.signIn(parsed.data.email, parsed.data.password, request.ip);
    } catch (error) {
      if (error instanceof RateLimitedError) {
        void reply.header('retry-after', String(error.retryAfterSeconds));
        return this.answerForm(request, reply, 429, {
          error: ctx.m.signInThrottled,
          email: parsed.data.email,
        });
      }
      if (error instanceof AuthenticationError)
        return this.answerForm(request, reply, 401, { error: ctx.m.signInFailed, email: parsed.data.email });
      throw error;
    }
    const maxAge = Math.floor((session.expiresOn.getTime() - Date.now()) / 1000);
    clearCookie(reply, this.config, SIGN_IN_COOKIE);
    void reply.setCookie(SESSION_COOKIE, session.sessionId, cookieOptions(this.config, maxAge));
    return reply.redirect('/overview', 303);
  }

  @Post('sign-out')
  async signOut(@CurrentSession() session: ConsoleSession, @Res() reply: FastifyReply) {
    await this.sessions.signOut(session);
    clearCookie(reply, this.config, SESSION_COOKIE);
    return reply.redirect('/sign-in?signed_out', 303);
  }

  @Post('sign-out-everywhere')
  async signOutEverywhere(@CurrentSession() session: ConsoleSession, @Res() reply: FastifyReply) {
    await this.sessions.signOutEverywhere(session);
    clearCookie(reply, this.config, SESSION_COOKIE);
    return reply.redirect('/sign-in?signed_out', 303);
  }

  /** The sign-in form with a CSRF token bound to a nonce cookie (kept while it is valid). */
  private answerForm(
    request: FastifyRequest,
    reply: FastifyReply,
    status: number,
    options: { error?: string; notice?: string; email?: string },
  ) {
    let nonce = signedCookie(request, SIGN_IN_COOKIE);
    if (!nonce) {
      nonce = this.sessions.signInNonce();
      void reply.setCookie(SIGN_IN_COOKIE, nonce, cookieOptions(this.config, SIGN_IN_NONCE_SECONDS));
    }
    const ctx = pageContext(request, this.sessions);
    return reply
      .status(status)
      .type('text/html; charset=utf-8')
      .send(signInPage(ctx, this.sessions.signInToken(nonce), options));
  }
}
