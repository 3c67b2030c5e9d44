import { Module, type DynamicModule } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { ConfigModule, type AppConfig } from '@kessai/config';
import { DbModule } from '@kessai/db';
import { RedisService } from '@kessai/runtime';
import { AppTokenAuthenticator } from './auth/app-token-authenticator';
import { AuthGuard } from './auth/auth.guard';
import { HeartbeatController } from './heartbeat/heartbeat.controller';
import { MeController } from './merchants/me.controller';
import { StoresController } from './stores/stores.controller';

@Module({})
export class GatewayModule {
  static register(config: AppConfig): DynamicModule {
    return {
      module: GatewayModule,
      imports: [ConfigModule.forRoot(config), DbModule],
      controllers: [HeartbeatController, MeController, StoresController],
      providers: [RedisService, AppTokenAuthenticator, { provide: APP_GUARD, useClass: AuthGuard }],
    };
  }
}
