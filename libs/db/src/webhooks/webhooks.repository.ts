import { Injectable } from '@nestjs/common';
import { ConflictError, ResourceLimitError, type PageRequest } from '@kessai/domain';
import type {
  DeliveryStatus,
  Prisma,
  ProcessingMode,
  Webhook,
  WebhookAttempt,
  WebhookDelivery,
} from '../generated/prisma/client';
import { listPage } from '../keyset';
import { ConsoleAuditRepository, type AuditEntry } from '../audit/console-audit.repository';
import { createWithinActiveLimit, withActiveLimitLock } from '../limits/active-limit';
import { appendOutboxEvent } from '../outbox/outbox-writer';
import { PrismaService } from '../prisma.service';
import {
  CREATE_DELIVERIES,
  FIND_DELIVERIES,
  FIND_DELIVERY_TARGETS,
  FIND_SUBSCRIBED_EVENTS,
  RECORD_DELIVERY_ATTEMPTS,
  FIND_STALE_DELIVERIES,
} from './webhooks.sql';
import type { AccessScope } from '../scope';

/** A webhook's secrets sealed (decision 0086): the columns a write sets. */
export interface SealedWebhookSecrets {
  keyId: string;
  iv: Uint8Array<ArrayBuffer>;
  ciphertext: Uint8Array<ArrayBuffer>;
  authTag: Uint8Array<ArrayBuffer>;
}

/** A webhook's secrets in the clear: a try's, or a row's not sealed yet. */
export interface PlainWebhookSecrets {
  signingSecret: string;
  previousSigningSecret: string | null;
  authToken: string | null;
}

/** A webhook's secrets as its row holds them: sealed, or (a row from before 0086) in plaintext. */
export type StoredWebhookSecrets =
  | { sealed: { keyId: string; iv: Uint8Array; ciphertext: Uint8Array; authTag: Uint8Array }; plain: null }
  | { sealed: null; plain: PlainWebhookSecrets };

/**
 * Opens a row's secrets (the vault's WebhookSecretsCipher.read), for the webhook `webhookId`; null:
 * they failed to open, and the row is left out.
 */
export type WebhookSecretsReader = (
  stored: StoredWebhookSecrets,
  webhookId: string,
) => PlainWebhookSecrets | null;

/** A sealed webhook as vault:rotate reads it. */
export interface SealedWebhookRow {
  id: string;
  keyId: string;
  iv: Uint8Array;
  ciphertext: Uint8Array;
  authTag: Uint8Array;
}

export interface NewWebhook {
  /** drawn by the caller: the sealed secrets are bound to it */
  id: string;
  merchantId: string;
  /** null for a merchant-level webhook */
  storeId: string | null;
  url: string;
  triggers: string[];
  secrets: SealedWebhookSecrets;
  /** the creating credential's mode: the URL rules it is held to */
  mode: 'test' | 'live';
}

export interface WebhookChanges {
  url?: string;
  triggers?: string[];
  active?: boolean;
}

/** An outbox event as webhook dispatch reads it. */
export interface WebhookEvent {
  id: string;
  eventType: string;
  merchantId: string;
  storeId: string | null;
  aggregateId: string;
  payload: Record<string, unknown>;
  createdOn: Date;
}

/** An event with the active webhooks subscribed to it. */
export interface SubscribedEvent extends WebhookEvent {
  webhookIds: string[];
}

/** A delivery row to write: one per webhook and event. */
export interface NewDelivery {
  id: string;
  webhookId: string;
  eventId: string;
  event: string;
  body: string;
}

/** A webhook as a try to it needs it. */
export interface DeliveryTarget {
  webhookId: string;
  url: string;
  authToken: string | null;
  signingSecret: string;
  /** the secret before the last rotation while it still signs (its overlap), else null */
  previousSigningSecret: string | null;
  /** the events it receives; a live webhook must be https (the address rule is the same for all) */
  mode: ProcessingMode;
  webhookActive: boolean;
}

/** One delivery with what a try of it sends, and where. */
export interface DeliveryToSend extends DeliveryTarget {
  id: string;
  status: DeliveryStatus;
  attemptCount: number;
  body: string;
}

/** A webhook as a list shows it: with its merchant's and store's names. */
export type WebhookListItem = Webhook & { merchant: { name: string }; store: { name: string } | null };

/** A delivery as its log shows it: the row without its body, with its tries in order. */
export type LoggedDelivery = Omit<WebhookDelivery, 'body'> & { attempts: WebhookAttempt[] };

/** A try of a delivery and what it leaves the delivery as. */
export interface DeliveryAttemptRecord {
  deliveryId: string;
  number: number;
  statusCode: number | null;
  errorMessage: string | null;
  /** the first bytes of the answer */
  responseSnippet: string | null;
  durationMs: number;
  status: DeliveryStatus;
  nextAttemptOn: Date | null;
  /** set: the webhook is turned off, with this as its reason */
  disableReason: string | null;
  /** false for a try that sent nothing: it says nothing of the endpoint's health */
  judged: boolean;
}

const urlExists = () =>
  new ConflictError('WEBHOOK_URL_EXISTS', [{ field: 'url', reason: 'WEBHOOK_URL_EXISTS' }]);

/**
 * Webhooks: the resource (docs/webhooks.md) and its deliveries. Creation, a URL change and a
 * re-activation run under the scope's active-limit lock (docs/resource-limits.md): at most `max`
 * active webhooks and one webhook per URL in a scope, whatever runs in parallel.
 */
@Injectable()
export class WebhooksRepository {
  constructor(
    private readonly prisma: PrismaService,
    private readonly audit: ConsoleAuditRepository,
  ) {}

  /**
   * Inserts the webhook unless its scope (the store, or the merchant itself) already has `max`
   * active ones (ResourceLimitError) or a webhook with its URL (ConflictError WEBHOOK_URL_EXISTS).
   * `audit` (a console write, here and below): its row is inserted in the write's transaction, only
   * when the write happened.
   */
  createWithinLimit(webhook: NewWebhook, max: number, audit?: AuditEntry): Promise<Webhook> {
    return createWithinActiveLimit(
      this.prisma,
      { resource: 'webhook', scope: webhook, max },
      {
        countActive: (tx) => tx.webhook.count({ where: activeOf(webhook) }),
        create: async (tx) => {
          if (await urlTaken(tx, webhook, webhook.url, null)) throw urlExists();
          const { secrets, ...columns } = webhook;
          const created = await tx.webhook.create({
            data: { ...columns, ...sealedColumns(secrets), active: true },
          });
          if (audit) await this.audit.record({ ...audit, targetId: created.id }, tx);
          return created;
        },
      },
    );
  }

  /** One page of the scope's webhooks, active or not, with the merchant's and store's names. */
  list(scope: AccessScope, page: PageRequest): Promise<WebhookListItem[]> {
    return listPage(page, exactly(scope), {
      findCursor: (where) => this.prisma.webhook.findFirst({ where, select: { id: true, createdOn: true } }),
      findMany: (args) =>
        this.prisma.webhook.findMany({
          ...args,
          include: { merchant: { select: { name: true } }, store: { select: { name: true } } },
        }),
    });
  }

  findInScope(scope: AccessScope, id: string): Promise<Webhook | null> {
    return this.prisma.webhook.findFirst({ where: { id, ...exactly(scope) } });
  }

  /**
   * Changes a webhook of the scope; null when the scope has none with this id. Under the scope's
   * lock: a new URL must be free in the scope, and a re-activation must leave at most `max` active.
   * Re-activating clears the reason delivery turned it off. `reseal`, given: the row's secrets
   * sealed anew from the row as read under the lock (a new auth_token), written with the changes.
   */
  update(
    scope: AccessScope,
    id: string,
    changes: WebhookChanges,
    max: number,
    audit?: AuditEntry,
    reseal?: (current: Webhook) => SealedWebhookSecrets,
  ): Promise<Webhook | null> {
    return withActiveLimitLock(this.prisma, { resource: 'webhook', scope }, async (tx) => {
      const current = await tx.webhook.findFirst({ where: { id, ...exactly(scope) } });
      if (!current) return null;
      if (changes.url !== undefined && (await urlTaken(tx, scope, changes.url, id))) throw urlExists();
      const reactivating = changes.active === true && !current.active;
      if (reactivating && (await tx.webhook.count({ where: activeOf(scope) })) >= max)
        throw new ResourceLimitError('webhook');
      const updated = await tx.webhook.update({
        where: { id },
        // re-activating starts afresh: no reason, no failing period
        data: {
          ...changes,
          ...(reseal ? sealedColumns(reseal(current)) : {}),
          ...(changes.active === true ? { disabledReason: null, failingSince: null } : {}),
        },
      });
      if (audit) await this.audit.record({ ...audit, targetId: id }, tx);
      return updated;
    });
  }

  /**
   * A new signing secret (`reseal`: the secrets sealed anew from the row as read under the scope's
   * lock, the current secret becoming the previous one); the current one keeps signing until
   * `previousExpiresOn`. Null: not the scope's.
   */
  rotateSecret(
    scope: AccessScope,
    id: string,
    reseal: (current: Webhook) => SealedWebhookSecrets,
    previousExpiresOn: Date,
    audit?: AuditEntry,
  ): Promise<Webhook | null> {
    return withActiveLimitLock(this.prisma, { resource: 'webhook', scope }, async (tx) => {
      const current = await tx.webhook.findFirst({ where: { id, ...exactly(scope) } });
      if (!current) return null;
      const rotated = await tx.webhook.update({
        where: { id },
        data: { ...sealedColumns(reseal(current)), previousSecretExpiresOn: previousExpiresOn },
      });
      if (audit) await this.audit.record({ ...audit, targetId: id }, tx);
      return rotated;
    });
  }

  /** Up to `limit` webhooks whose secrets are still in plaintext (webhooks:seal), in id order. */
  findUnsealed(limit: number): Promise<Webhook[]> {
    return this.prisma.webhook.findMany({
      where: { secretsKeyId: null },
      orderBy: { id: 'asc' },
      take: limit,
    });
  }

  /**
   * Seals an old row's secrets and clears its plaintext, only while the row is as `old` was read
   * (unsealed, the same secrets): false when a write sealed it meanwhile, which leaves it as it is.
   */
  async sealPlaintext(
    old: Pick<Webhook, 'id' | 'signingSecret' | 'previousSigningSecret' | 'authToken'>,
    sealed: SealedWebhookSecrets,
  ): Promise<boolean> {
    const { count } = await this.prisma.webhook.updateMany({
      where: {
        id: old.id,
        secretsKeyId: null,
        signingSecret: old.signingSecret,
        previousSigningSecret: old.previousSigningSecret,
        authToken: old.authToken,
      },
      data: sealedColumns(sealed),
    });
    return count > 0;
  }

  /** Sealed webhooks under another key than `activeKeyId` (vault:rotate), in id order. */
  async findToRotate(activeKeyId: string, limit: number): Promise<SealedWebhookRow[]> {
    const rows = await this.prisma.webhook.findMany({
      where: { secretsKeyId: { not: null }, NOT: { secretsKeyId: activeKeyId } },
      select: {
        id: true,
        secretsKeyId: true,
        secretsIv: true,
        secretsCiphertext: true,
        secretsAuthTag: true,
      },
      orderBy: { id: 'asc' },
      take: limit,
    });
    return rows.flatMap((row) => {
      const sealed = storedSealed(row);
      return sealed ? [{ id: row.id, ...sealed }] : [];
    });
  }

  /** The same secrets under another key (vault:rotate); false when they changed since `old` was read. */
  async replaceEncryption(old: Pick<SealedWebhookRow, 'id' | 'keyId' | 'iv'>, next: SealedWebhookSecrets) {
    const { count } = await this.prisma.webhook.updateMany({
      where: { id: old.id, secretsKeyId: old.keyId, secretsIv: { equals: new Uint8Array(old.iv) } },
      data: sealedColumns(next),
    });
    return count > 0;
  }

  /** How many webhooks' secrets each key sealed (`plaintext`: rows not sealed yet). */
  async countByKey(): Promise<Record<string, number>> {
    const rows = await this.prisma.webhook.groupBy({ by: ['secretsKeyId'], _count: { _all: true } });
    return Object.fromEntries(rows.map((row) => [row.secretsKeyId ?? 'plaintext', row._count._all]));
  }

  /** Deletes a webhook of the scope with its deliveries; false when the scope has none with this id. */
  async delete(scope: AccessScope, id: string, audit?: AuditEntry): Promise<boolean> {
    const { count } = await this.audited(audit, id, (tx) =>
      (tx ?? this.prisma).webhook.deleteMany({ where: { id, ...exactly(scope) } }),
    );
    return count > 0;
  }

  /**
   * `write` alone (no transaction given), or, with `audit`, in one transaction with the audit row
   * (target `targetId`), inserted only when the write changed something (rows returned, or a count
   * above 0).
   */
  private audited<T extends unknown[] | { count: number }>(
    audit: AuditEntry | undefined,
    targetId: string,
    write: (tx?: Prisma.TransactionClient) => Promise<T>,
  ): Promise<T> {
    if (!audit) return write();
    return this.prisma.$transaction(async (tx) => {
      const result = await write(tx);
      const changed = Array.isArray(result) ? result.length > 0 : result.count > 0;
      if (changed) await this.audit.record({ ...audit, targetId }, tx);
      return result;
    });
  }

  /** One page of a webhook's deliveries (the caller has found the webhook in its scope), each with its tries. */
  listDeliveries(webhookId: string, page: PageRequest): Promise<LoggedDelivery[]> {
    return listPage(
      page,
      { webhookId },
      {
        findCursor: (where) =>
          this.prisma.webhookDelivery.findFirst({ where, select: { id: true, createdOn: true } }),
        findMany: (args) =>
          this.prisma.webhookDelivery.findMany({
            ...args,
            omit: { body: true },
            include: { attempts: { orderBy: { number: 'asc' } } },
          }),
      },
    );
  }

  findLoggedDelivery(webhookId: string, id: string): Promise<LoggedDelivery | null> {
    return this.prisma.webhookDelivery.findFirst({
      where: { id, webhookId },
      omit: { body: true },
      include: { attempts: { orderBy: { number: 'asc' } } },
    });
  }

  /**
   * One more try of a delivery of the webhook, now: the delivery is pending again (a final one
   * included) and the command webhook_replay_requested is written with it, in one transaction. The
   * delivery as that transaction left it (pending, its tries so far): read before the commit, so
   * the answer never races webhook-service's try. Null when the webhook has no such delivery.
   */
  async requestReplay(
    webhook: Pick<Webhook, 'id' | 'merchantId' | 'storeId'>,
    deliveryId: string,
    correlationId: string | null,
    audit?: AuditEntry,
  ): Promise<LoggedDelivery | null> {
    return this.prisma.$transaction(async (tx) => {
      const { count } = await tx.webhookDelivery.updateMany({
        where: { id: deliveryId, webhookId: webhook.id },
        data: { status: 'pending', nextAttemptOn: new Date() },
      });
      if (count === 0) return null;
      if (audit) await this.audit.record({ ...audit, targetId: deliveryId }, tx);
      await appendOutboxEvent(
        this.prisma,
        {
          merchantId: webhook.merchantId,
          storeId: webhook.storeId,
          aggregateType: 'webhook_delivery',
          aggregateId: deliveryId,
          eventType: 'webhook_replay_requested',
          payload: { delivery_id: deliveryId, webhook_id: webhook.id },
          correlationId,
        },
        tx,
      );
      return tx.webhookDelivery.findFirst({
        where: { id: deliveryId, webhookId: webhook.id },
        omit: { body: true },
        include: { attempts: { orderBy: { number: 'asc' } } },
      });
    });
  }

  /**
   * Of the events `ids`, those some active webhook is subscribed to, in their order, each with those
   * webhooks; one statement.
   */
  async findSubscribedEvents(ids: readonly string[]): Promise<SubscribedEvent[]> {
    if (ids.length === 0) return [];
    const rows = await this.prisma.run(FIND_SUBSCRIBED_EVENTS, { ids: [...new Set(ids)] });
    return rows.map((row) => ({
      id: row.id,
      eventType: row.event_type,
      merchantId: row.merchant_id,
      storeId: row.store_id,
      aggregateId: row.aggregate_id,
      payload: row.payload,
      createdOn: row.created_on,
      webhookIds: [...row.webhook_ids],
    }));
  }

  /**
   * The deliveries, one per webhook and event (a pair that has one keeps it), in one statement;
   * resolves to those of these pairs still to be tried for the first time, with their webhooks.
   */
  async createDeliveries(deliveries: readonly NewDelivery[]): Promise<{ id: string; webhookId: string }[]> {
    if (deliveries.length === 0) return [];
    const rows = await this.prisma.run(CREATE_DELIVERIES, {
      deliveries: deliveries.map((delivery) => ({
        id: delivery.id,
        webhook_id: delivery.webhookId,
        event_id: delivery.eventId,
        event: delivery.event,
        body: delivery.body,
      })),
    });
    return rows.map((row) => ({ id: row.id, webhookId: row.webhook_id }));
  }

  /**
   * The webhooks `ids` that exist, with what a try to each needs, their secrets opened by `secrets`;
   * one statement.
   */
  async findDeliveryTargets(
    ids: readonly string[],
    secrets: WebhookSecretsReader,
  ): Promise<DeliveryTarget[]> {
    if (ids.length === 0) return [];
    const rows = await this.prisma.run(FIND_DELIVERY_TARGETS, { ids: [...new Set(ids)] });
    return rows.flatMap((row) => {
      const opened = openedFor(row, row.id, secrets);
      if (!opened) return [];
      return [{ webhookId: row.id, url: row.url, ...opened, mode: row.mode, webhookActive: row.active }];
    });
  }

  /**
   * The deliveries `ids` that exist, with what a try of each sends, their webhooks' secrets opened
   * by `secrets`; one statement.
   */
  async findDeliveries(ids: readonly string[], secrets: WebhookSecretsReader): Promise<DeliveryToSend[]> {
    if (ids.length === 0) return [];
    const rows = await this.prisma.run(FIND_DELIVERIES, { ids: [...new Set(ids)] });
    // a job's deliveries are mostly one webhook's: its secrets opened once
    const byWebhook = new Map<string, PlainWebhookSecrets | null>();
    return rows.flatMap((row) => {
      if (!byWebhook.has(row.webhook_id))
        byWebhook.set(row.webhook_id, openedFor(row, row.webhook_id, secrets));
      const opened = byWebhook.get(row.webhook_id);
      if (!opened) return [];
      return [
        {
          id: row.id,
          webhookId: row.webhook_id,
          status: row.status,
          attemptCount: row.attempt_count,
          body: row.body,
          url: row.url,
          ...opened,
          mode: row.mode,
          webhookActive: row.webhook_active,
        },
      ];
    });
  }

  /** Pending deliveries whose try is overdue by `seconds`, with the tries they had. */
  async findStaleDeliveries(seconds: number, limit: number): Promise<{ id: string; attemptCount: number }[]> {
    const rows = await this.prisma.run(FIND_STALE_DELIVERIES, { seconds, limit });
    return rows.map((row) => ({ id: row.id, attemptCount: row.attempt_count }));
  }

  /**
   * Records tries of pending deliveries (at most one per delivery), in one statement; resolves to the
   * deliveries whose try this call recorded (not those recorded already, nor final ones). A webhook
   * whose tries all failed and that has been failing for longer than `disableAfterSeconds` is
   * turned off.
   */
  async recordAttempts(
    attempts: readonly DeliveryAttemptRecord[],
    disableAfterSeconds: number,
  ): Promise<Set<string>> {
    if (attempts.length === 0) return new Set();
    // in id order: two statements over the same deliveries lock them in the same order
    const sorted = [...attempts].sort((a, b) => (a.deliveryId < b.deliveryId ? -1 : 1));
    const rows = await this.prisma.run(RECORD_DELIVERY_ATTEMPTS, {
      tries: sorted.map((a) => ({
        delivery_id: a.deliveryId,
        number: a.number,
        status_code: a.statusCode,
        error_message: a.errorMessage,
        response_snippet: a.responseSnippet,
        duration_ms: a.durationMs,
        status: a.status,
        next_attempt_on: a.nextAttemptOn,
        disable_reason: a.disableReason,
        judged: a.judged,
      })),
      disableAfterSeconds,
    });
    return new Set(rows.map((row) => row.id));
  }
}

/** The webhooks of exactly one scope: a store's, or the merchant's own (store_id null). */
function exactly(scope: AccessScope) {
  return { merchantId: scope.merchantId, storeId: scope.storeId };
}

function activeOf(scope: AccessScope) {
  return { ...exactly(scope), active: true };
}

async function urlTaken(
  tx: Prisma.TransactionClient,
  scope: AccessScope,
  url: string,
  exceptId: string | null,
): Promise<boolean> {
  const found = await tx.webhook.findFirst({
    where: { ...exactly(scope), url, ...(exceptId ? { NOT: { id: exceptId } } : {}) },
    select: { id: true },
  });
  return found !== null;
}

/** A webhook row's secrets as it holds them: sealed, or (not sealed yet) its plaintext columns. */
export function storedSecretsOf(
  row: Pick<
    Webhook,
    | 'signingSecret'
    | 'previousSigningSecret'
    | 'authToken'
    | 'secretsKeyId'
    | 'secretsIv'
    | 'secretsCiphertext'
    | 'secretsAuthTag'
  >,
): StoredWebhookSecrets {
  const sealed = storedSealed(row);
  if (sealed) return { sealed, plain: null };
  // the trigger webhooks_secrets_check: an unsealed row has its signing secret
  if (row.signingSecret === null) throw new Error('a webhook row holds neither sealed nor plaintext secrets');
  return {
    sealed: null,
    plain: {
      signingSecret: row.signingSecret,
      previousSigningSecret: row.previousSigningSecret,
      authToken: row.authToken,
    },
  };
}

function storedSealed(
  row: Pick<Webhook, 'secretsKeyId' | 'secretsIv' | 'secretsCiphertext' | 'secretsAuthTag'>,
): Omit<SealedWebhookRow, 'id'> | null {
  const { secretsKeyId: keyId, secretsIv: iv, secretsCiphertext: ciphertext, secretsAuthTag: authTag } = row;
  return keyId !== null && iv !== null && ciphertext !== null && authTag !== null
    ? { keyId, iv, ciphertext, authTag }
    : null;
}

/** The columns of sealed secrets, the plaintext ones cleared (the trigger webhooks_secrets_check requires it). */
function sealedColumns(sealed: SealedWebhookSecrets) {
  return {
    secretsKeyId: sealed.keyId,
    secretsIv: sealed.iv,
    secretsCiphertext: sealed.ciphertext,
    secretsAuthTag: sealed.authTag,
    signingSecret: null,
    previousSigningSecret: null,
    authToken: null,
  };
}

/** A statement row's secrets opened, the previous one only while it still signs. */
function openedFor(
  row: {
    auth_token: string | null;
    signing_secret: string | null;
    previous_signing_secret: string | null;
    secrets_key_id: string | null;
    secrets_iv: Uint8Array | null;
    secrets_ciphertext: Uint8Array | null;
    secrets_auth_tag: Uint8Array | null;
    previous_signs: boolean;
  },
  webhookId: string,
  secrets: WebhookSecretsReader,
): PlainWebhookSecrets | null {
  const opened = secrets(
    storedSecretsOf({
      signingSecret: row.signing_secret,
      previousSigningSecret: row.previous_signing_secret,
      authToken: row.auth_token,
      secretsKeyId: row.secrets_key_id,
      secretsIv: row.secrets_iv as Webhook['secretsIv'],
      secretsCiphertext: row.secrets_ciphertext as Webhook['secretsCiphertext'],
      secretsAuthTag: row.secrets_auth_tag as Webhook['secretsAuthTag'],
    }),
    webhookId,
  );
  if (!opened) return null;
  return { ...opened, previousSigningSecret: row.previous_signs ? opened.previousSigningSecret : null };
}
