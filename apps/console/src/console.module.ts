import { Module, type DynamicModule } from '@nestjs/common';
import { APP_FILTER, APP_GUARD } from '@nestjs/core';
import { AccountsModule } from '@kessai/accounts';
import { ConfigModule, type ProcessConfig } from '@kessai/config';
import { DbModule } from '@kessai/db';
import { LoggerModule, type Logger } from '@kessai/observability';
import { PaymentsModule } from '@kessai/payments';
import { RateLimiter } from '@kessai/rate-limits';
import { RedisModule } from '@kessai/redis';
import { SubscriptionsModule } from '@kessai/subscriptions';
import { WebhooksModule } from '@kessai/webhooks';
import { AssetsController } from './pages/assets.controller';
import { DevelopersController } from './pages/developers.controller';
import { HealthController } from './pages/health.controller';
// the overview and the test clocks (docs/console.md, "Overview", "Test clocks")
import { OverviewController } from './pages/overview.controller';
import { TestClocksController } from './pages/test-clocks.controller';
import { PageErrorsFilter } from './pages/page-errors.filter';
import { PaymentsController } from './pages/payments.controller';
import { SettingsController } from './pages/settings.controller';
import { SignInController } from './pages/sign-in.controller';
// store settings
import { StoreSettingsController } from './pages/store-settings.controller';
import { SubscriptionsController } from './pages/subscriptions.controller';
import { ConsoleGuard } from './session/console.guard';
import { ConsoleSessions } from './session/console-sessions';

export type ConsoleConfig = ProcessConfig<'console'>;

/**
 * The merchant console: the libs' use cases (accounts, payments, subscriptions, webhooks) called in-process, as the gateway
 * calls them (decision 0035), behind the console's own sessions, CSRF and roles.
 */
@Module({})
export class ConsoleModule {
  static register(config: ConsoleConfig, logger: Logger): DynamicModule {
    return {
      module: ConsoleModule,
      imports: [
        ConfigModule.forRoot(config),
        LoggerModule.forRoot(logger),
        DbModule,
        RedisModule,
        AccountsModule,
        PaymentsModule,
        SubscriptionsModule,
        WebhooksModule,
      ],
      controllers: [
        HealthController,
        AssetsController,
        SignInController,
        OverviewController,
        PaymentsController,
        SubscriptionsController,
        TestClocksController,
        SettingsController,
        DevelopersController,
        // store settings
        StoreSettingsController,
      ],
      providers: [
        RateLimiter,
        ConsoleSessions,
        { provide: APP_GUARD, useClass: ConsoleGuard },
        { provide: APP_FILTER, useClass: PageErrorsFilter },
      ],
    };
  }
}
