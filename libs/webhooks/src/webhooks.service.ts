import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '@kessai/config';
import { randomBytes, randomUUID } from 'node:crypto';
import {
  StoresRepository,
  storedSecretsOf,
  WebhooksRepository,
  type AccessScope,
  type AuditedWrite,
  type LoggedDelivery,
  type Webhook,
} from '@kessai/db';
import {
  ACTIVE_LIMITS,
  ConflictError,
  isUuid,
  NotFoundError,
  PermissionError,
  ValidationError,
  webhookTriggerRefusal,
  type PageRequest,
} from '@kessai/domain';
import type { Correlation } from '@kessai/observability';
import { WebhookSecretsCipher, type WebhookSecrets } from '@kessai/vault';
import type { WebhookChangesInput, WebhookInput } from './webhook-inputs';
import { WebhookUrlPolicy } from './webhook-url.policy';

/**
 * Webhook management (api-reference §5.10, docs/webhooks.md), for the gateway and any other front
 * end: a store's webhooks, or the merchant's own (store_id null). Triggers are checked for the
 * owner, the URL by WebhookUrlPolicy in the caller's mode; at most 20 active per owner and one per
 * URL. Every method but ownerOf takes the owner ownerOf resolved; answers are rows, which each
 * front end presents. Delivery is webhook-service's.
 *
 * The secrets (signing secret, the previous one, auth_token) are sealed with the vault's keys on
 * every write (decision 0086); an answer carries the auth_token opened, and the signing secret
 * only when it was just made (creation, rotation), never the sealed columns.
 */
@Injectable()
export class WebhooksService {
  constructor(
    private readonly webhooks: WebhooksRepository,
    private readonly stores: StoresRepository,
    private readonly urls: WebhookUrlPolicy,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly cipher: WebhookSecretsCipher,
  ) {}

  /** `mode`: the caller's processing mode, the new webhook's. */
  async create(
    scope: AccessScope,
    mode: 'test' | 'live',
    request: WebhookInput,
    options: AuditedWrite = {},
  ): Promise<CreatedWebhook> {
    checkTriggers(request.triggers, scope);
    const url = await this.urls.check(request.url, mode);
    const id = randomUUID();
    const secrets = {
      // Standard Webhooks: "whsec_" and the base64 of the key (here 32 random bytes)
      signingSecret: newSigningSecret(),
      previousSigningSecret: null,
      authToken: request.auth_token ?? null,
    };
    const webhook = await this.webhooks.createWithinLimit(
      {
        id,
        merchantId: scope.merchantId,
        storeId: scope.storeId,
        url,
        triggers: request.triggers,
        secrets: this.cipher.seal(secrets, id),
        mode,
      },
      ACTIVE_LIMITS.webhook,
      options.audit,
    );
    return { ...withoutSecrets(webhook), authToken: secrets.authToken, signingSecret: secrets.signingSecret };
  }

  async list(scope: AccessScope, page: PageRequest): Promise<WebhookListEntry[]> {
    return (await this.webhooks.list(scope, page)).map((row) => this.view(row));
  }

  /** A webhook of the owner; a malformed id is the same 404 as an unknown one. */
  async find(scope: AccessScope, id: string): Promise<WebhookResource> {
    return this.view(await this.findVisible(scope, id));
  }

  /** The webhook's delivery log: its deliveries, newest first, each with its tries. */
  async listDeliveries(scope: AccessScope, id: string, page: PageRequest): Promise<LoggedDelivery[]> {
    const webhook = await this.findVisible(scope, id);
    return this.webhooks.listDeliveries(webhook.id, page);
  }

  /**
   * One more try of a delivery, now (same delivery, same webhook-id, a new try): 202 with the
   * delivery, pending. An inactive webhook's delivery is refused (409): it would not be sent.
   */
  async replayDelivery(
    scope: AccessScope,
    id: string,
    deliveryId: string,
    correlation: Correlation,
    options: AuditedWrite = {},
  ): Promise<LoggedDelivery> {
    const webhook = await this.findVisible(scope, id);
    if (!isUuid(deliveryId)) throw new NotFoundError('webhook_delivery');
    const delivery = deliveryId.toLowerCase();
    if (!webhook.active && (await this.webhooks.findLoggedDelivery(webhook.id, delivery)))
      throw new ConflictError('CONFLICTED', [{ field: null, reason: 'WEBHOOK_INACTIVE' }]);
    // as the request left it (pending), never as webhook-service's try may already have changed it
    const replayed = await this.webhooks.requestReplay(
      webhook,
      delivery,
      correlation.correlationId,
      options.audit,
    );
    if (!replayed) throw new NotFoundError('webhook_delivery');
    return replayed;
  }

  /**
   * `current` as find() read it; `mode` the caller's (a new URL is checked in it, or in live mode
   * for a live webhook).
   */
  async update(
    scope: AccessScope,
    mode: 'test' | 'live',
    current: WebhookResource,
    request: WebhookChangesInput,
    options: AuditedWrite = {},
  ): Promise<WebhookResource> {
    if (request.triggers !== undefined) checkTriggers(request.triggers, scope);
    const url =
      request.url !== undefined && request.url !== current.url
        ? await this.urls.check(request.url, current.mode === 'live' ? 'live' : mode)
        : undefined;
    const updated = await this.webhooks.update(
      scope,
      current.id,
      {
        ...(url !== undefined ? { url } : {}),
        ...(request.triggers !== undefined ? { triggers: request.triggers } : {}),
        ...(request.active !== undefined ? { active: request.active } : {}),
      },
      ACTIVE_LIMITS.webhook,
      options.audit,
      request.auth_token === undefined
        ? undefined
        : (row) =>
            this.cipher.seal({ ...this.secretsOf(row), authToken: request.auth_token ?? null }, row.id),
    );
    if (!updated) throw new NotFoundError('webhook');
    return this.view(updated);
  }

  /**
   * A new signing secret, in this answer only (`signing_secret`); the old one keeps signing
   * deliveries for WEBHOOK_SECRET_OVERLAP_SECONDS, so a receiver switches without missing one.
   */
  async rotateSecret(scope: AccessScope, id: string, options: AuditedWrite = {}): Promise<CreatedWebhook> {
    const webhook = await this.findVisible(scope, id);
    const overlapEnds = new Date(Date.now() + this.config.WEBHOOK_SECRET_OVERLAP_SECONDS * 1_000);
    const signingSecret = newSigningSecret();
    let authToken: string | null = null;
    const rotated = await this.webhooks.rotateSecret(
      webhook,
      webhook.id,
      (row) => {
        const current = this.secretsOf(row);
        authToken = current.authToken;
        return this.cipher.seal(
          { signingSecret, previousSigningSecret: current.signingSecret, authToken },
          row.id,
        );
      },
      overlapEnds,
      options.audit,
    );
    if (!rotated) throw new NotFoundError('webhook');
    return { ...withoutSecrets(rotated), authToken, signingSecret };
  }

  async delete(scope: AccessScope, id: string, options: AuditedWrite = {}): Promise<void> {
    if (!isUuid(id) || !(await this.webhooks.delete(scope, id.toLowerCase(), options.audit)))
      throw new NotFoundError('webhook');
  }

  /** A row's secrets: opened, or an old row's plaintext (decision 0086). */
  private secretsOf(row: Webhook): WebhookSecrets {
    return this.cipher.read(storedSecretsOf(row), row.id);
  }

  /** A row as an answer: its auth_token opened, nothing else of its secrets. */
  private view<T extends Webhook>(row: T): Omit<T, SecretColumn> & { authToken: string | null } {
    return { ...withoutSecrets(row), authToken: this.secretsOf(row).authToken };
  }

  private async findVisible(scope: AccessScope, id: string): Promise<Webhook> {
    const webhook = isUuid(id) ? await this.webhooks.findInScope(scope, id.toLowerCase()) : null;
    if (!webhook) throw new NotFoundError('webhook');
    return webhook;
  }

  /**
   * Whose webhooks a caller (`actor`: its own scope) addresses: the merchant's own (`storeId` null;
   * merchant credentials only, a store-scoped caller gets 403 as on /app_jwts), or a store the caller
   * may see (404 otherwise, a malformed id included).
   */
  async ownerOf(actor: AccessScope, storeId: string | null): Promise<AccessScope> {
    if (storeId === null) {
      if (actor.storeId !== null) throw new PermissionError('INVALID_PERMISSIONS');
      return { merchantId: actor.merchantId, storeId: null };
    }
    if (!isUuid(storeId)) throw new NotFoundError('store');
    const store = await this.stores.findVisible(actor, storeId.toLowerCase());
    if (!store) throw new NotFoundError('store');
    return { merchantId: store.merchantId, storeId: store.id };
  }
}

/** The columns of a webhook row that hold its secrets, sealed or (an old row) in plaintext. */
type SecretColumn =
  | 'signingSecret'
  | 'previousSigningSecret'
  | 'authToken'
  | 'secretsKeyId'
  | 'secretsIv'
  | 'secretsCiphertext'
  | 'secretsAuthTag';

/** A webhook as the use cases answer it: its auth_token opened, no other secret. */
export type WebhookResource = Omit<Webhook, SecretColumn> & { authToken: string | null };

/** A list's webhook, with its merchant's and store's names. */
export type WebhookListEntry = WebhookResource & {
  merchant: { name: string };
  store: { name: string } | null;
};

/** The answer to a creation or rotation: the webhook and, this once, its signing secret. */
export type CreatedWebhook = WebhookResource & { signingSecret: string };

function withoutSecrets<T extends Webhook>(row: T): Omit<T, SecretColumn> {
  const copy: Partial<T> = { ...row };
  for (const column of SECRET_COLUMNS) delete copy[column];
  return copy as Omit<T, SecretColumn>;
}

const SECRET_COLUMNS = [
  'signingSecret',
  'previousSigningSecret',
  'authToken',
  'secretsKeyId',
  'secretsIv',
  'secretsCiphertext',
  'secretsAuthTag',
] as const satisfies readonly SecretColumn[];

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
