import { Injectable } from '@nestjs/common';
import type { OutboxEvent, Prisma } from '../generated/prisma/client';
import { PrismaService } from '../prisma.service';

export interface NewOutboxEvent {
  merchantId: string;
  storeId?: string | null;
  aggregateType: string;
  aggregateId: string;
  eventType: string;
  /** ids and facts only: never a secret, a token or card data (events reach queues and webhooks) */
  payload: Prisma.InputJsonObject;
  correlationId?: string | null;
}

/**
 * Appends domain events to `outbox_events`. Call it with the transaction that makes the state
 * change, so that the change and its event commit (or roll back) together; publishing happens later.
 */
@Injectable()
export class OutboxRepository {
  constructor(private readonly prisma: PrismaService) {}

  append(event: NewOutboxEvent, db: Prisma.TransactionClient = this.prisma): Promise<OutboxEvent> {
    return db.outboxEvent.create({ data: event });
  }
}
