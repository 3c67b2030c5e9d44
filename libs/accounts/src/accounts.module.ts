import { Module } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '@kessai/config';
import { AppTokenChanges } from './app-token-changes';
import { AppTokenService } from './app-tokens.service';
import { LoginService } from './login.service';
import { MerchantUsersService } from './merchant-users.service';
import { PasswordResetDelivery, passwordResetDeliveryFor } from './password-reset-delivery';
import { PasswordResetService } from './password-reset.service';

const services = [AppTokenService, MerchantUsersService, LoginService, PasswordResetService];

/** Credentials and accounts for Nest apps; needs the (global) ConfigModule, DbModule and RedisModule. */
@Module({
  providers: [
    ...services,
    AppTokenChanges,
    {
      provide: PasswordResetDelivery,
      inject: [APP_CONFIG],
      useFactory: (config: AppConfig) => passwordResetDeliveryFor(config),
    },
  ],
  exports: services,
})
export class AccountsModule {}
