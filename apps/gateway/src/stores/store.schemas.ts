import { z } from 'zod';
import { storeNameSchema } from '@kessai/accounts';
import { merchantConfigurationPatchSchema } from '@kessai/store-configuration';
import { FormFile } from '../http/form-body';
import { reason } from '../http/request.schemas';

/** Request schemas of the store routes (api-reference §5.7), in wire (snake_case) form. */

/**
 * A logo as the SDK sends a Blob: a file of a multipart/form-data body (http/form-body.ts). Any other
 * value (text, JSON) is refused; null removes the store's logo.
 */
const logoUpload = z
  .custom<FormFile | null>((logo) => logo === null || logo instanceof FormFile, reason('INVALID_FORMAT'))
  .optional();

const name = storeNameSchema;

/** `sdk.stores.update`, as JSON or, with a logo, as multipart/form-data. */
export const storeUpdate = z
  .object({
    name: name.optional(),
    configuration: merchantConfigurationPatchSchema.optional(),
    logo: logoUpload,
  })
  .strict();

/** `sdk.stores.create`, as JSON or, with a logo, as multipart/form-data. */
export const storeCreation = z
  .object({
    name,
    configuration: merchantConfigurationPatchSchema.optional(),
    logo: logoUpload,
  })
  .strict();

export const listFilters = z.object({ search: z.string().max(200).optional() }).passthrough();

/** A merchant's own id for its customer: any text a merchant's system would use as a key. */
export const customerIdRequest = z.object({ customer_id: z.string().trim().min(1).max(255) }).strict();
