export * from './accounts.module';
export * from './app-tokens.service';
export * from './merchant-users.service';
export * from './login.service';
export * from './password-reset.service';
export * from './password-reset-delivery';
export * from './passwords';
