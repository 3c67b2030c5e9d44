import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '@kessai/config';
import { randomBytes } from 'node:crypto';
import { StoresRepository, WebhooksRepository, type AccessScope, type Webhook } from '@kessai/db';
import {
  ACTIVE_LIMITS,
  ConflictError,
  NotFoundError,
  PermissionError,
  ValidationError,
  parsePageRequest,
  toPage,
  webhookTriggerRefusal,
} from '@kessai/domain';
import { z } from 'zod';
import type { Principal } from '../auth/principal';
import { parseInput } from '../http/validation';
import {
  presentCreatedWebhook,
  presentDelivery,
  presentWebhook,
  presentWebhookListItem,
} from './webhook.presenter';
import { createWebhookSchema, updateWebhookSchema } from './webhook.schemas';
import { WebhookUrlPolicy } from './webhook-url.policy';

const uuid = z.string().uuid();

/**
 * Webhooks (api-reference §5.10, docs/webhooks.md): a store's under /stores/{storeId}/webhooks, the
 * merchant's own (store_id null) under /webhooks. Triggers are checked for the scope, the URL by
 * WebhookUrlPolicy in the caller's mode; at most 20 active per scope and one per URL.
 */
@Injectable()
export class WebhooksService {
  constructor(
    private readonly webhooks: WebhooksRepository,
    private readonly stores: StoresRepository,
    private readonly urls: WebhookUrlPolicy,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async create(principal: Principal, storeId: string | null, body: unknown) {
    const scope = await this.scopeOf(principal, storeId);
    const request = parseInput(createWebhookSchema, body);
    checkTriggers(request.triggers, scope);
    const url = await this.urls.check(request.url, principal.mode);
    const webhook = await this.webhooks.createWithinLimit(
      {
        merchantId: scope.merchantId,
        storeId: scope.storeId,
        url,
        triggers: request.triggers,
        authToken: request.auth_token ?? null,
        // Standard Webhooks: "whsec_" and the base64 of the key (here 32 random bytes)
        signingSecret: newSigningSecret(),
        mode: principal.mode,
      },
      ACTIVE_LIMITS.webhook,
    );
    return presentCreatedWebhook(webhook);
  }

  async list(principal: Principal, storeId: string | null, query: Record<string, unknown>) {
    const page = parsePageRequest(query);
    const scope = await this.scopeOf(principal, storeId);
    return toPage(await this.webhooks.list(scope, page), page.limit, presentWebhookListItem);
  }

  async get(principal: Principal, storeId: string | null, id: string) {
    return presentWebhook(await this.findVisible(await this.scopeOf(principal, storeId), id));
  }

  /** The webhook's delivery log: its deliveries, newest first, each with its tries. */
  async listDeliveries(
    principal: Principal,
    storeId: string | null,
    id: string,
    query: Record<string, unknown>,
  ) {
    const page = parsePageRequest(query);
    const webhook = await this.findVisible(await this.scopeOf(principal, storeId), id);
    return toPage(await this.webhooks.listDeliveries(webhook.id, page), page.limit, presentDelivery);
  }

  /**
   * One more try of a delivery, now (same delivery, same webhook-id, a new try): 202 with the
   * delivery, pending. An inactive webhook's delivery is refused (409): it would not be sent.
   */
  async replayDelivery(
    principal: Principal,
    storeId: string | null,
    id: string,
    deliveryId: string,
    context: { correlationId: string },
  ) {
    const webhook = await this.findVisible(await this.scopeOf(principal, storeId), id);
    if (!uuid.safeParse(deliveryId).success) throw new NotFoundError('webhook_delivery');
    const delivery = deliveryId.toLowerCase();
    if (!webhook.active && (await this.webhooks.findLoggedDelivery(webhook.id, delivery)))
      throw new ConflictError('CONFLICTED', [{ field: null, reason: 'WEBHOOK_INACTIVE' }]);
    if (!(await this.webhooks.requestReplay(webhook, delivery, context.correlationId)))
      throw new NotFoundError('webhook_delivery');
    const replayed = await this.webhooks.findLoggedDelivery(webhook.id, delivery);
    if (!replayed) throw new NotFoundError('webhook_delivery');
    return presentDelivery(replayed);
  }

  async update(principal: Principal, storeId: string | null, id: string, body: unknown) {
    const scope = await this.scopeOf(principal, storeId);
    const current = await this.findVisible(scope, id);
    const request = parseInput(updateWebhookSchema, body);
    if (request.triggers !== undefined) checkTriggers(request.triggers, scope);
    const url =
      request.url !== undefined && request.url !== current.url
        ? await this.urls.check(request.url, current.mode === 'live' ? 'live' : principal.mode)
        : undefined;
    const updated = await this.webhooks.update(
      scope,
      id,
      {
        ...(url !== undefined ? { url } : {}),
        ...(request.triggers !== undefined ? { triggers: request.triggers } : {}),
        ...(request.auth_token !== undefined ? { authToken: request.auth_token } : {}),
        ...(request.active !== undefined ? { active: request.active } : {}),
      },
      ACTIVE_LIMITS.webhook,
    );
    if (!updated) throw new NotFoundError('webhook');
    return presentWebhook(updated);
  }

  /**
   * A new signing secret, in this answer only (`signing_secret`); the old one keeps signing
   * deliveries for WEBHOOK_SECRET_OVERLAP_SECONDS, so a receiver switches without missing one.
   */
  async rotateSecret(principal: Principal, storeId: string | null, id: string) {
    const webhook = await this.findVisible(await this.scopeOf(principal, storeId), id);
    const overlapEnds = new Date(Date.now() + this.config.WEBHOOK_SECRET_OVERLAP_SECONDS * 1_000);
    const rotated = await this.webhooks.rotateSecret(webhook, webhook.id, newSigningSecret(), overlapEnds);
    if (!rotated) throw new NotFoundError('webhook');
    return presentCreatedWebhook(rotated);
  }

  async delete(principal: Principal, storeId: string | null, id: string): Promise<void> {
    const scope = await this.scopeOf(principal, storeId);
    if (!uuid.safeParse(id).success || !(await this.webhooks.delete(scope, id.toLowerCase())))
      throw new NotFoundError('webhook');
  }

  private async findVisible(scope: AccessScope, id: string): Promise<Webhook> {
    const webhook = uuid.safeParse(id).success
      ? await this.webhooks.findInScope(scope, id.toLowerCase())
      : null;
    if (!webhook) throw new NotFoundError('webhook');
    return webhook;
  }

  /**
   * Whose webhooks the path names: the merchant's own (no store; merchant credentials only, a store
   * token gets 403 as on /app_jwts), or a store the caller may see (404 otherwise, a malformed id
   * included).
   */
  private async scopeOf(principal: Principal, storeId: string | null): Promise<AccessScope> {
    if (storeId === null) {
      if (principal.storeId !== null) throw new PermissionError('INVALID_PERMISSIONS');
      return { merchantId: principal.merchantId, storeId: null };
    }
    if (!uuid.safeParse(storeId).success) throw new NotFoundError('store');
    const store = await this.stores.findVisible(principal, storeId.toLowerCase());
    if (!store) throw new NotFoundError('store');
    return { merchantId: store.merchantId, storeId: store.id };
  }
}

/** Standard Webhooks: "whsec_" and the base64 of the key (here 32 random bytes). */
function newSigningSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

/** Every trigger must be one of the scope's (INVALID_EVENT_FOR_STORE / INVALID_EVENT_FOR_MERCHANT). */
function checkTriggers(triggers: readonly string[], scope: AccessScope): void {
  const errors = triggers.flatMap((trigger, i) => {
    const reason = webhookTriggerRefusal(trigger, scope.storeId === null ? 'merchant' : 'store');
    return reason === null ? [] : [{ field: `triggers.${i}`, reason }];
  });
  if (errors.length > 0) throw new ValidationError(errors);
}
