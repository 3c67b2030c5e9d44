export * from './prisma.service';
export * from './keyset';
export * from './db.module';
export * from './repositories/scope';
export * from './repositories/merchants.repository';
export * from './repositories/stores.repository';
export * from './repositories/app-tokens.repository';
export type { Merchant, Store, AppToken } from './generated/prisma/client';
export { Prisma } from './generated/prisma/client';
