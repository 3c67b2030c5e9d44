import { Module } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '@kessai/config';
import { AppTokenChanges } from './app-token-changes';
import { AppTokenService } from './app-tokens.service';
import { CustomerLoginDelivery, customerLoginDeliveryFor } from './customer-login-delivery';
import { CustomerLoginsService } from './customer-logins.service';
import { LoginService } from './login.service';
import { MerchantUsersService } from './merchant-users.service';
import { PasswordResetDelivery, passwordResetDeliveryFor } from './password-reset-delivery';
import { PasswordResetService } from './password-reset.service';
import { StoresService } from './stores.service';
import { TransfersService } from './transfers.service';
import { VerificationService } from './verification.service';

const services = [
  AppTokenService,
  MerchantUsersService,
  LoginService,
  PasswordResetService,
  CustomerLoginsService,
  StoresService,
  TransfersService,
  VerificationService,
];

/**
 * Credentials and accounts for Nest apps (app tokens, merchant users, logins, password resets,
 * customers' self-service logins,
 * stores, transfers, merchants' verification); needs the (global) ConfigModule, DbModule, RedisModule and LoggerModule.
 */
@Module({
  providers: [
    ...services,
    AppTokenChanges,
    {
      provide: PasswordResetDelivery,
      inject: [APP_CONFIG],
      useFactory: (config: AppConfig) => passwordResetDeliveryFor(config),
    },
    {
      provide: CustomerLoginDelivery,
      inject: [APP_CONFIG],
      useFactory: (config: AppConfig) => customerLoginDeliveryFor(config),
    },
  ],
  exports: services,
})
export class AccountsModule {}
