import { Module, type DynamicModule } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { ConfigModule, type AppConfig } from '@kessai/config';
import { DbModule } from '@kessai/db';
import { AccountsModule } from '@kessai/accounts';
import { RedisModule } from '@kessai/redis';
import { vaultProviders } from '@kessai/vault';
import { AppTokenAuthenticator } from './auth/app-token-authenticator';
import { AppTokenCache } from './auth/app-token-cache';
import { LoginController } from './accounts/login.controller';
import { PasswordResetsController } from './accounts/password-resets.controller';
import { AppJwtsController } from './app-jwts/app-jwts.controller';
import { AuthGuard } from './auth/auth.guard';
import { IdempotencySweeper } from './idempotency/idempotency-sweeper';
import { RateLimiter } from './limits/rate-limiter';
import { HeartbeatController } from './heartbeat/heartbeat.controller';
import { MeController } from './merchants/me.controller';
import { StoresController } from './stores/stores.controller';
import { TransactionTokensController } from './transaction-tokens/transaction-tokens.controller';
import { TransactionTokensService } from './transaction-tokens/transaction-tokens.service';
import { ChargesController } from './charges/charges.controller';
import { ChargesService } from './charges/charges.service';
import { ProcessorCallbacksController } from './processor-callbacks/processor-callbacks.controller';
import { ProcessorCallbacksService } from './processor-callbacks/processor-callbacks.service';

@Module({})
export class GatewayModule {
  static register(config: AppConfig): DynamicModule {
    return {
      module: GatewayModule,
      imports: [ConfigModule.forRoot(config), DbModule, RedisModule, AccountsModule],
      controllers: [
        HeartbeatController,
        MeController,
        StoresController,
        AppJwtsController,
        LoginController,
        PasswordResetsController,
        TransactionTokensController,
        ChargesController,
        ProcessorCallbacksController,
      ],
      providers: [
        RateLimiter,
        IdempotencySweeper,
        AppTokenCache,
        AppTokenAuthenticator,
        ...vaultProviders,
        TransactionTokensService,
        ChargesService,
        ProcessorCallbacksService,
        { provide: APP_GUARD, useClass: AuthGuard },
      ],
    };
  }
}
