import type { merchantConfigurationPatchSchema } from '@kessai/store-configuration';
import { z } from 'zod';

// The inputs of the store use cases, as a front end parsed them (the gateway: store.schemas.ts),
// with the API's field names (api-reference §5.7).

/** A store's name, as every front end takes it (the API's `name`, the console's store form). */
export const storeNameSchema = z.string().trim().min(1).max(100);

/** A change of a store's configuration as a merchant may make it: fees are the operator's. */
export type MerchantConfigurationPatch = z.infer<typeof merchantConfigurationPatchSchema>;

/** An uploaded logo file, as received (its bytes cut at the parser's bound when `truncated`). */
export interface LogoUpload {
  bytes: Buffer;
  size: number;
  /** whether the sender's file was longer than the bytes kept */
  truncated: boolean;
  /** hex SHA-256 of `bytes` */
  sha256: string;
}

/** A store to create; a logo comes with it or not at all. */
export interface StoreInput {
  name: string;
  configuration?: MerchantConfigurationPatch;
  logo?: LogoUpload | null;
}

/** A store's changes: its name, its configuration's keys (null returns a key to the merchant's), its logo (null removes it). */
export interface StoreChangesInput {
  name?: string;
  configuration?: MerchantConfigurationPatch;
  logo?: LogoUpload | null;
}
