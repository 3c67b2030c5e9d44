import { Module, type DynamicModule } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { ConfigModule, type GatewayConfig } from '@kessai/config';
import { DbModule } from '@kessai/db';
import { AccountsModule, BankAccountsModule } from '@kessai/accounts';
import { PaymentsModule } from '@kessai/payments';
import { SubscriptionsModule } from '@kessai/subscriptions';
import { TransactionTokensModule } from '@kessai/transaction-tokens';
import { WebhooksModule } from '@kessai/webhooks';
import { RedisModule } from '@kessai/redis';
import { LoggerModule, metricsRegistryProvider, type Logger } from '@kessai/observability';
import { AppTokenAuthenticator } from './auth/app-token-authenticator';
import { AppTokenCache } from './auth/app-token-cache';
import { LoginController } from './accounts/login.controller';
import { PasswordResetsController } from './accounts/password-resets.controller';
import { AppJwtsController } from './app-jwts/app-jwts.controller';
import { AuthGuard } from './auth/auth.guard';
import { IdempotencySweeper } from './idempotency/idempotency-sweeper';
import { RateLimiter } from '@kessai/rate-limits';
import { HeartbeatController } from './heartbeat/heartbeat.controller';
import { GatewayMetrics } from './metrics/gateway-metrics';
import { MetricsController } from './metrics/metrics.controller';
import { MeController } from './merchants/me.controller';
import { StoresController } from './stores/stores.controller';
import { CheckoutInfoController } from './checkout-info/checkout-info.controller';
import { CheckoutController } from './checkout/checkout.controller';
import { CheckoutService } from './checkout/checkout.service';
import { HostedCheckoutController } from './hosted-checkout/hosted-checkout.controller';
import { HostedPagesService } from './hosted-checkout/hosted-pages.service';
import { LinkPaymentsService } from './hosted-checkout/link-payments.service';
import { TransactionTokensController } from './transaction-tokens/transaction-tokens.controller';
import { TokenAliasesController } from './transaction-tokens/token-aliases.controller';
import { CustomerLoginsController } from './accounts/customer-logins.controller';
import { ChargesController } from './charges/charges.controller';
import { RefundsController } from './refunds/refunds.controller';
import { CancelsController } from './cancels/cancels.controller';
import { ProcessorCallbacksController } from './processor-callbacks/processor-callbacks.controller';
import { ProcessorCallbacksService } from './processor-callbacks/processor-callbacks.service';
import { TransactionHistoryController } from './transaction-history/transaction-history.controller';
import { TransactionHistoryService } from './transaction-history/transaction-history.service';
import { SubscriptionsController } from './subscriptions/subscriptions.controller';
import { TestClocksController } from './test-clocks/test-clocks.controller';
import { WebhooksController } from './webhooks/webhooks.controller';
import { BankAccountsController } from './bank-accounts/bank-accounts.controller';
import { LedgersController, TransfersController } from './transfers/transfers.controller';
import { VerificationController } from './verification/verification.controller';
import { ExchangeRatesController } from './exchange-rates/exchange-rates.controller';
import { OPENAPI_DOCUMENT, OpenApiController, OpenApiDocumentSource } from './openapi/openapi.controller';
import { buildOpenApiDocument } from './openapi/openapi-document';

/** Every controller of the gateway: the routes, and what the OpenAPI document describes. */
export const GATEWAY_CONTROLLERS = [
  HeartbeatController,
  MetricsController,
  OpenApiController,
  MeController,
  StoresController,
  AppJwtsController,
  LoginController,
  PasswordResetsController,
  CustomerLoginsController,
  TransactionTokensController,
  TokenAliasesController,
  ChargesController,
  RefundsController,
  CancelsController,
  CheckoutInfoController,
  CheckoutController,
  HostedCheckoutController,
  ProcessorCallbacksController,
  TransactionHistoryController,
  SubscriptionsController,
  TestClocksController,
  WebhooksController,
  BankAccountsController,
  TransfersController,
  LedgersController,
  VerificationController,
  ExchangeRatesController,
];

@Module({})
export class GatewayModule {
  static register(config: GatewayConfig, logger: Logger): DynamicModule {
    return {
      module: GatewayModule,
      imports: [
        ConfigModule.forRoot(config),
        LoggerModule.forRoot(logger),
        DbModule,
        RedisModule,
        AccountsModule,
        BankAccountsModule,
        PaymentsModule,
        SubscriptionsModule,
        TransactionTokensModule,
        WebhooksModule,
      ],
      controllers: GATEWAY_CONTROLLERS,
      providers: [
        metricsRegistryProvider,
        GatewayMetrics,
        RateLimiter,
        IdempotencySweeper,
        AppTokenCache,
        AppTokenAuthenticator,
        ProcessorCallbacksService,
        TransactionHistoryService,
        CheckoutService,
        HostedPagesService,
        LinkPaymentsService,
        {
          provide: OPENAPI_DOCUMENT,
          useValue: new OpenApiDocumentSource(() => buildOpenApiDocument(GATEWAY_CONTROLLERS)),
        },
        { provide: APP_GUARD, useClass: AuthGuard },
      ],
    };
  }
}
