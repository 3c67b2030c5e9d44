import { Injectable } from '@nestjs/common';
import type { Webhook } from '../generated/prisma/client';
import { createWithinActiveLimit } from '../limits/active-limit';
import { PrismaService } from '../prisma.service';
import type { AccessScope } from './scope';

export interface NewWebhook {
  merchantId: string;
  /** null for a merchant-level webhook */
  storeId: string | null;
  url: string;
  triggers: string[];
  authToken?: string | null;
  signingSecret: string;
}

/** Webhooks. The webhook resource API arrives with a later issue; the active-count limit is here now. */
@Injectable()
export class WebhooksRepository {
  constructor(private readonly prisma: PrismaService) {}

  /** Inserts the webhook unless its scope (the store, or the merchant itself) already has `max` active ones. */
  createWithinLimit(webhook: NewWebhook, max: number): Promise<Webhook> {
    return createWithinActiveLimit(
      this.prisma,
      { resource: 'webhook', scope: webhook, max },
      {
        countActive: (tx) => tx.webhook.count({ where: activeOf(webhook) }),
        create: (tx) => tx.webhook.create({ data: { ...webhook, active: true } }),
      },
    );
  }
}

/** The active webhooks of exactly one scope: a store's, or the merchant's own (store_id null). */
function activeOf(scope: AccessScope) {
  return { merchantId: scope.merchantId, storeId: scope.storeId, active: true };
}
