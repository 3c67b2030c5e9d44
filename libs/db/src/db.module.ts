import { Global, Module } from '@nestjs/common';
import { PrismaService } from './prisma.service';
import { AppTokensRepository } from './accounts/app-tokens.repository';
import { ConsoleAuditRepository } from './audit/console-audit.repository';
import { MerchantsRepository } from './accounts/merchants.repository';
import { StoresRepository } from './stores/stores.repository';
import { DailyQuotas } from './limits/daily-quotas';
import { IdempotencyRecordsRepository } from './idempotency/idempotency-records.repository';
import { LoginSessionsRepository } from './accounts/login-sessions.repository';
import { MerchantUsersRepository } from './accounts/merchant-users.repository';
import { OutboxRepository } from './outbox/outbox.repository';
import { PasswordResetsRepository } from './accounts/password-resets.repository';
import { TransactionTokensRepository } from './tokens/transaction-tokens.repository';
import { TokenThreeDsRepository } from './tokens/token-three-ds.repository';
import { TokenCvvAuthorizeRepository } from './tokens/token-cvv-authorize.repository';
import { TransactionTokenAliasesRepository } from './tokens/transaction-token-aliases.repository';
import { CustomerLoginCodesRepository } from './accounts/customer-login-codes.repository';
import { WebhooksRepository } from './webhooks/webhooks.repository';
import { ChargesRepository } from './charges/charges.repository';
import { CapturesRepository } from './charges/captures.repository';
import { RefundsRepository } from './refunds-cancels/refunds.repository';
import { CancelsRepository } from './refunds-cancels/cancels.repository';
import { SubscriptionsRepository } from './subscriptions/subscriptions.repository';
import { TestClocksRepository } from './subscriptions/test-clocks.repository';
import { TransactionHistoryRepository } from './transaction-history/transaction-history.repository';
import { SubscriptionEngineRepository } from './subscriptions/subscription-engine.repository';
import { SubscriptionBatchesRepository } from './subscriptions/subscription-batches.repository';
import { DeferredPaymentsRepository } from './charges/deferred-payments.repository';
import { CheckoutFormsRepository } from './checkout/checkout-forms.repository';
import { CheckoutProductsRepository } from './checkout/checkout-products.repository';
import { CheckoutLinksRepository } from './checkout/checkout-links.repository';
import { CheckoutPaymentMailsRepository } from './checkout/payment-mails.repository';
import { StoreLogosRepository } from './stores/store-logos.repository';
import { LedgerRepository } from './ledger/ledger.repository';
import { BankAccountsRepository } from './payouts/bank-accounts.repository';
import { PayoutsRepository } from './payouts/payouts.repository';
import { TransfersRepository } from './payouts/transfers.repository';
import { MerchantVerificationsRepository } from './accounts/merchant-verifications.repository';
import { ExchangeRatesRepository } from './exchange-rates/exchange-rates.repository';
import { PaymentOverviewRepository } from './overview/payment-overview.repository';
import { ProcessorAccountsRepository } from './processors/processor-accounts.repository';

import { DatabaseHealth } from './database-health';

const repositories = [
  DatabaseHealth,
  MerchantsRepository,
  StoresRepository,
  AppTokensRepository,
  ConsoleAuditRepository,
  MerchantUsersRepository,
  LoginSessionsRepository,
  PasswordResetsRepository,
  CustomerLoginCodesRepository,
  WebhooksRepository,
  OutboxRepository,
  TransactionTokensRepository,
  TokenThreeDsRepository,
  TokenCvvAuthorizeRepository,
  TransactionTokenAliasesRepository,
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
  CheckoutPaymentMailsRepository,
  StoreLogosRepository,
  LedgerRepository,
  BankAccountsRepository,
  PayoutsRepository,
  TransfersRepository,
  MerchantVerificationsRepository,
  ExchangeRatesRepository,
  PaymentOverviewRepository,
  ProcessorAccountsRepository,
];

@Global()
@Module({ providers: [PrismaService, ...repositories], exports: [PrismaService, ...repositories] })
export class DbModule {}
