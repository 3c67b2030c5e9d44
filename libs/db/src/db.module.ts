import { Global, Module } from '@nestjs/common';
import { PrismaService } from './prisma.service';
import { AppTokensRepository } from './repositories/app-tokens.repository';
import { MerchantsRepository } from './repositories/merchants.repository';
import { StoresRepository } from './repositories/stores.repository';
import { DailyQuotas } from './limits/daily-quotas';
import { IdempotencyRecordsRepository } from './repositories/idempotency-records.repository';
import { LoginSessionsRepository } from './repositories/login-sessions.repository';
import { MerchantUsersRepository } from './repositories/merchant-users.repository';
import { OutboxRepository } from './repositories/outbox.repository';
import { PasswordResetsRepository } from './repositories/password-resets.repository';
import { TransactionTokensRepository } from './repositories/transaction-tokens.repository';
import { TokenThreeDsRepository } from './repositories/token-three-ds.repository';
import { WebhooksRepository } from './repositories/webhooks.repository';
import { ChargesRepository } from './repositories/charges.repository';
import { CapturesRepository } from './repositories/captures.repository';
import { RefundsRepository } from './repositories/refunds.repository';
import { CancelsRepository } from './repositories/cancels.repository';
import { SubscriptionsRepository } from './repositories/subscriptions.repository';
import { TestClocksRepository } from './repositories/test-clocks.repository';
import { TransactionHistoryRepository } from './repositories/transaction-history.repository';
import { SubscriptionEngineRepository } from './repositories/subscription-engine.repository';
import { SubscriptionBatchesRepository } from './repositories/subscription-batches.repository';
import { DeferredPaymentsRepository } from './repositories/deferred-payments.repository';
import { CheckoutFormsRepository } from './repositories/checkout-forms.repository';
import { CheckoutProductsRepository } from './repositories/checkout-products.repository';
import { CheckoutLinksRepository } from './repositories/checkout-links.repository';
import { StoreLogosRepository } from './repositories/store-logos.repository';
import { LedgerRepository } from './ledger/ledger.repository';

import { DatabaseHealth } from './database-health';

const repositories = [
  DatabaseHealth,
  MerchantsRepository,
  StoresRepository,
  AppTokensRepository,
  MerchantUsersRepository,
  LoginSessionsRepository,
  PasswordResetsRepository,
  WebhooksRepository,
  OutboxRepository,
  TransactionTokensRepository,
  TokenThreeDsRepository,
  DailyQuotas,
  IdempotencyRecordsRepository,
  ChargesRepository,
  CapturesRepository,
  RefundsRepository,
  CancelsRepository,
  TransactionHistoryRepository,
  SubscriptionEngineRepository,
  SubscriptionBatchesRepository,
  SubscriptionsRepository,
  TestClocksRepository,
  DeferredPaymentsRepository,
  CheckoutFormsRepository,
  CheckoutProductsRepository,
  CheckoutLinksRepository,
  StoreLogosRepository,
  LedgerRepository,
];

@Global()
@Module({ providers: [PrismaService, ...repositories], exports: [PrismaService, ...repositories] })
export class DbModule {}
