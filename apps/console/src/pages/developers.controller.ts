import { Body, Controller, Get, Param, Post, Query, Req, Res } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { z } from 'zod';
import { AppTokenService, type TokenManager } from '@kessai/accounts';
import { StoresRepository, type AccessScope, type AuditEntry } from '@kessai/db';
import {
  isUuid,
  MERCHANT_WEBHOOK_TRIGGERS,
  NotFoundError,
  STORE_WEBHOOK_TRIGGERS,
  webhookTriggerRefusal,
} from '@kessai/domain';
import { WebhooksService, type CreatedWebhook, type WebhookResource } from '@kessai/webhooks';
import { may } from '../roles';
import { ConsoleSessions, type ConsoleSession } from '../session/console-sessions';
import { CurrentSession, Requires } from '../session/decorators';
import { developersPage, secretsPage, webhookPage } from '../views/developers';
import type { Messages } from '../views/messages';
import { appTokenForm, ownerForm, ownerQuery, webhookChangesForm, webhookForm } from './developers.schemas';
import { auditOf, badFields, refusalOfWrite, send } from './page-replies';
import { modeOf, pageContext } from './request-context';

/** The most app tokens and webhooks a page lists (an owner has at most 20 active of each). */
const LISTED = 100;
/** The deliveries a webhook's page lists, newest first. */
const DELIVERIES_SHOWN = 50;
/** The stores the owner picker offers. */
const STORES_OFFERED = 100;

/** A form's POST as its handler received it. */
interface FormPost {
  session: ConsoleSession;
  body: unknown;
  request: FastifyRequest;
  reply: FastifyReply;
}

type Notice = 'revoked' | 'webhookSaved' | 'webhookDeleted' | 'replayed';
const NOTICES: readonly Notice[] = ['revoked', 'webhookSaved', 'webhookDeleted', 'replayed'];

/**
 * The developer pages (docs/console.md): the app tokens and webhooks of the merchant or one of its
 * stores, in the mode the switch shows, through the use cases the API runs (AppTokenService, the
 * code of /app_jwts; WebhooksService, the code of /webhooks), each write with the console's audit
 * row in its transaction. A new token's secret and a webhook's signing secret are shown once, on the
 * answer of the write that made them, never again. Every role reads; owner, admin and developer
 * manage.
 */
@Controller()
export class DevelopersController {
  constructor(
    private readonly sessions: ConsoleSessions,
    private readonly tokens: AppTokenService,
    private readonly webhooks: WebhooksService,
    private readonly stores: StoresRepository,
  ) {}

  @Get('developers')
  @Requires('payments:read')
  async show(
    @CurrentSession() session: ConsoleSession,
    @Query() query: Record<string, unknown>,
    @Req() request: FastifyRequest,
    @Res() reply: FastifyReply,
  ) {
    const parsed = ownerQuery.safeParse(query);
    if (!parsed.success) throw new NotFoundError('store');
    const notice = NOTICES.find((key) => query[key] !== undefined);
    const owner = await this.ownerOf(session, parsed.data.store);
    return send(reply, 200, await this.renderDevelopers(session, owner, request, { notice }));
  }

  @Post('developers/app-tokens')
  @Requires('developers:manage')
  async createAppToken(
    @CurrentSession() session: ConsoleSession,
    @Body() body: unknown,
    @Req() request: FastifyRequest,
    @Res() reply: FastifyReply,
  ) {
    const m = pageContext(request, this.sessions).m;
    return this.writeFor(
      { session, body, request, reply },
      appTokenForm,
      m.appTokenRefused,
      async (owner, form) => {
        const mode = modeOf(request);
        const audit = this.audit(session, request, 'app_token.create', 'app_token', {
          domains: form.domains,
        });
        const issued = await this.tokens.issue(
          managerOf(session),
          owner.storeId,
          { mode, domains: form.domains },
          { audit },
        );
        return secretsPage(
          pageContext(request, this.sessions),
          m.credentialsTitle,
          [
            { label: m.id, id: 'token-id', value: issued.token.id },
            { label: m.secret, id: 'token-secret', value: issued.secret },
            { label: m.jwt, id: 'token-jwt', value: issued.jwt },
          ],
          { href: developersPath(owner), text: m.backToDevelopers },
        );
      },
    );
  }

  @Post('developers/app-tokens/:id/revoke')
  @Requires('developers:manage')
  async revokeAppToken(
    @CurrentSession() session: ConsoleSession,
    @Param('id') id: string,
    @Body() body: unknown,
    @Req() request: FastifyRequest,
    @Res() reply: FastifyReply,
  ) {
    const owner = await this.ownerOf(session, formOwner(body));
    if (!isUuid(id)) throw new NotFoundError('app_token');
    const token = await this.tokens.get(managerOf(session), owner.storeId, id.toLowerCase());
    if (token.mode !== modeOf(request)) throw new NotFoundError('app_token');
    const audit = this.audit(session, request, 'app_token.revoke', 'app_token', {});
    await this.tokens.revoke(managerOf(session), owner.storeId, token.id, {
      audit: { ...audit, targetId: token.id },
    });
    return reply.redirect(developersPath(owner, 'revoked'), 303);
  }

  @Post('developers/webhooks')
  @Requires('developers:manage')
  async createWebhook(
    @CurrentSession() session: ConsoleSession,
    @Body() body: unknown,
    @Req() request: FastifyRequest,
    @Res() reply: FastifyReply,
  ) {
    const m = pageContext(request, this.sessions).m;
    return this.writeFor(
      { session, body, request, reply },
      webhookForm,
      m.webhookRefused,
      async (owner, form) => {
        const detail = { url: form.url, triggers: form.triggers };
        const audit = this.audit(session, request, 'webhook.create', 'webhook', detail);
        const webhook = await this.webhooks.create(
          owner,
          modeOf(request),
          { url: form.url, triggers: form.triggers, auth_token: form.auth_token ?? null },
          { audit },
        );
        return signingSecretPage(this.sessions, request, m, webhook);
      },
    );
  }

  @Get('developers/webhooks/:id')
  @Requires('payments:read')
  async showWebhook(
    @CurrentSession() session: ConsoleSession,
    @Param('id') id: string,
    @Query() query: Record<string, unknown>,
    @Req() request: FastifyRequest,
    @Res() reply: FastifyReply,
  ) {
    const parsed = ownerQuery.safeParse(query);
    if (!parsed.success) throw new NotFoundError('store');
    const owner = await this.ownerOf(session, parsed.data.store);
    const webhook = await this.webhookOf(owner, id, request);
    const notice = NOTICES.find((key) => query[key] !== undefined);
    return send(reply, 200, await this.renderWebhook(session, webhook, request, { notice }));
  }

  @Post('developers/webhooks/:id')
  @Requires('developers:manage')
  async updateWebhook(
    @CurrentSession() session: ConsoleSession,
    @Param('id') id: string,
    @Body() body: unknown,
    @Req() request: FastifyRequest,
    @Res() reply: FastifyReply,
  ) {
    const ctx = pageContext(request, this.sessions);
    const owner = await this.ownerOf(session, formOwner(body));
    const webhook = await this.webhookOf(owner, id, request);
    const parsed = webhookChangesForm.safeParse(body);
    const refused = async (error: string) =>
      send(reply, 400, await this.renderWebhook(session, webhook, request, { error }));
    if (!parsed.success) return refused(`${ctx.m.webhookRefused}: ${badFields(parsed.error)}`);
    const form = parsed.data;
    const changes = {
      url: form.url,
      triggers: form.triggers,
      active: form.active === 'on',
      ...(form.auth_token !== undefined ? { auth_token: form.auth_token } : {}),
    };
    const detail = { url: changes.url, triggers: changes.triggers, active: changes.active };
    const audit = this.audit(session, request, 'webhook.update', 'webhook', detail);
    const refusal = await refusalOfWrite(
      () => this.webhooks.update(owner, modeOf(request), webhook, changes, { audit }),
      ctx.m.webhookRefused,
    );
    if (refusal !== null) return refused(refusal);
    return reply.redirect(webhookPath(webhook, 'webhookSaved'), 303);
  }

  @Post('developers/webhooks/:id/rotate-secret')
  @Requires('developers:manage')
  async rotateSecret(
    @CurrentSession() session: ConsoleSession,
    @Param('id') id: string,
    @Body() body: unknown,
    @Req() request: FastifyRequest,
    @Res() reply: FastifyReply,
  ) {
    const owner = await this.ownerOf(session, formOwner(body));
    const webhook = await this.webhookOf(owner, id, request);
    const audit = this.audit(session, request, 'webhook.rotate_secret', 'webhook', {});
    const rotated = await this.webhooks.rotateSecret(owner, webhook.id, { audit });
    const m = pageContext(request, this.sessions).m;
    return send(reply, 200, signingSecretPage(this.sessions, request, m, rotated));
  }

  @Post('developers/webhooks/:id/delete')
  @Requires('developers:manage')
  async deleteWebhook(
    @CurrentSession() session: ConsoleSession,
    @Param('id') id: string,
    @Body() body: unknown,
    @Req() request: FastifyRequest,
    @Res() reply: FastifyReply,
  ) {
    const owner = await this.ownerOf(session, formOwner(body));
    const webhook = await this.webhookOf(owner, id, request);
    const audit = this.audit(session, request, 'webhook.delete', 'webhook', { url: webhook.url });
    await this.webhooks.delete(owner, webhook.id, { audit });
    return reply.redirect(developersPath(owner, 'webhookDeleted'), 303);
  }

  @Post('developers/webhooks/:id/deliveries/:deliveryId/replay')
  @Requires('developers:manage')
  async replay(
    @CurrentSession() session: ConsoleSession,
    @Param('id') id: string,
    @Param('deliveryId') deliveryId: string,
    @Body() body: unknown,
    @Req() request: FastifyRequest,
    @Res() reply: FastifyReply,
  ) {
    const ctx = pageContext(request, this.sessions);
    const owner = await this.ownerOf(session, formOwner(body));
    const webhook = await this.webhookOf(owner, id, request);
    const audit = this.audit(session, request, 'webhook_delivery.replay', 'webhook_delivery', {
      webhook_id: webhook.id,
    });
    const refusal = await refusalOfWrite(
      () =>
        this.webhooks.replayDelivery(owner, webhook.id, deliveryId, { correlationId: request.id }, { audit }),
      ctx.m.replayRefused,
    );
    if (refusal !== null)
      return send(reply, 400, await this.renderWebhook(session, webhook, request, { error: refusal }));
    return reply.redirect(webhookPath(webhook, 'replayed'), 303);
  }

  /**
   * A create from a form of the developers page, for the owner the form names: a bad form is that
   * page again with the fields named, a use case's refusal with its code (both 400); done, `run`'s page.
   */
  private async writeFor<F>(
    { session, body, request, reply }: FormPost,
    schema: z.ZodType<F, z.ZodTypeDef, unknown>,
    what: string,
    run: (owner: AccessScope, form: F) => Promise<string>,
  ) {
    const owner = await this.ownerOf(session, formOwner(body));
    const refused = async (error: string) =>
      send(reply, 400, await this.renderDevelopers(session, owner, request, { error }));
    const parsed = schema.safeParse(body);
    if (!parsed.success) return refused(`${what}: ${badFields(parsed.error)}`);
    let page = '';
    const refusal = await refusalOfWrite(async () => {
      page = await run(owner, parsed.data);
    }, what);
    if (refusal !== null) return refused(refusal);
    return send(reply, 201, page);
  }

  /** The merchant's own scope (no store), or one of its stores; any other store is a missing page. */
  private async ownerOf(session: ConsoleSession, storeId: string | undefined): Promise<AccessScope> {
    return this.webhooks.ownerOf({ merchantId: session.user.merchantId, storeId: null }, storeId ?? null);
  }

  /** The owner's webhook `id` in the mode the switch shows; any other id is a missing page. */
  private async webhookOf(owner: AccessScope, id: string, request: FastifyRequest): Promise<WebhookResource> {
    const webhook = await this.webhooks.find(owner, id);
    if (webhook.mode !== modeOf(request)) throw new NotFoundError('webhook');
    return webhook;
  }

  /** An audit entry of this session's write; the write fills in its target's id. */
  private audit(
    session: ConsoleSession,
    request: FastifyRequest,
    action: string,
    targetType: string,
    detail: Record<string, unknown>,
  ): AuditEntry {
    return auditOf(session, request, { action, targetType, targetId: '', mode: modeOf(request) }, detail);
  }

  private async renderDevelopers(
    session: ConsoleSession,
    owner: AccessScope,
    request: FastifyRequest,
    messages: { notice?: Notice; error?: string },
  ): Promise<string> {
    const ctx = pageContext(request, this.sessions);
    const mode = modeOf(request);
    const page = { limit: LISTED, cursor: null, direction: 'desc' } as const;
    const merchant = { merchantId: session.user.merchantId, storeId: null };
    const [tokens, webhooks, stores] = await Promise.all([
      this.tokens.list(managerOf(session), owner.storeId, page),
      this.webhooks.list(owner, page),
      this.stores.list(merchant, { limit: STORES_OFFERED, cursor: null, direction: 'asc' }),
    ]);
    return developersPage(ctx, {
      owner: { storeId: owner.storeId, stores: stores.slice(0, STORES_OFFERED) },
      tokens: tokens.filter((token) => token.mode === mode),
      webhooks: webhooks.filter((webhook) => webhook.mode === mode),
      triggers: triggersOf(owner),
      canManage: may(session.user.role, 'developers:manage'),
      notice: messages.notice && ctx.m[messages.notice],
      error: messages.error,
    });
  }

  private async renderWebhook(
    session: ConsoleSession,
    webhook: WebhookResource,
    request: FastifyRequest,
    messages: { notice?: Notice; error?: string },
  ): Promise<string> {
    const ctx = pageContext(request, this.sessions);
    const owner = { merchantId: webhook.merchantId, storeId: webhook.storeId };
    const deliveries = await this.webhooks.listDeliveries(owner, webhook.id, {
      limit: DELIVERIES_SHOWN,
      cursor: null,
      direction: 'desc',
    });
    return webhookPage(ctx, {
      webhook,
      deliveries: deliveries.slice(0, DELIVERIES_SHOWN),
      triggers: triggersOf(owner),
      canManage: may(session.user.role, 'developers:manage'),
      notice: messages.notice && ctx.m[messages.notice],
      error: messages.error,
    });
  }
}

/** A console user manages the merchant's tokens as a merchant user does through the API (decision 0028). */
function managerOf(session: ConsoleSession): TokenManager {
  return { kind: 'user', mode: null, merchantId: session.user.merchantId, storeId: null };
}

/** The store a form names (its hidden `store` field), undefined for the merchant's own; a bad one is a missing page. */
function formOwner(body: unknown): string | undefined {
  const parsed = ownerForm.safeParse(body ?? {});
  if (!parsed.success) throw new NotFoundError('store');
  return parsed.data.store;
}

/** The triggers a webhook of the owner may have (those the scope allows and Kessai emits). */
function triggersOf(owner: AccessScope): string[] {
  const scope = owner.storeId === null ? 'merchant' : 'store';
  const all: readonly string[] = scope === 'store' ? STORE_WEBHOOK_TRIGGERS : MERCHANT_WEBHOOK_TRIGGERS;
  return all.filter((trigger) => webhookTriggerRefusal(trigger, scope) === null);
}

function developersPath(owner: AccessScope, notice?: Notice): string {
  const query = new URLSearchParams();
  if (owner.storeId !== null) query.set('store', owner.storeId);
  if (notice) query.set(notice, '');
  const text = query.toString();
  return text === '' ? '/developers' : `/developers?${text}`;
}

function webhookPath(webhook: WebhookResource, notice?: Notice): string {
  const query = new URLSearchParams();
  if (webhook.storeId !== null) query.set('store', webhook.storeId);
  if (notice) query.set(notice, '');
  const text = query.toString();
  return `/developers/webhooks/${webhook.id}${text === '' ? '' : `?${text}`}`;
}

/** A webhook's signing secret, shown once on the answer of its creation or rotation. */
function signingSecretPage(
  sessions: ConsoleSessions,
  request: FastifyRequest,
  m: Messages,
  webhook: CreatedWebhook,
): string {
  return secretsPage(
    pageContext(request, sessions),
    m.signingSecretTitle,
    [
      { label: m.id, id: 'webhook-id', value: webhook.id },
      { label: m.signingSecret, id: 'signing-secret', value: webhook.signingSecret },
    ],
    { href: webhookPath(webhook), text: m.backToWebhook },
  );
}
