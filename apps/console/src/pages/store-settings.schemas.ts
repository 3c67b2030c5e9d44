import { z } from 'zod';
import { storeNameSchema } from '@kessai/accounts';
import { CHECKOUT_COLOR_KEYS, type CheckoutColorKey } from '@kessai/store-configuration';

/**
 * Request schemas of the console's store settings (forms, as browsers send them). The name is the
 * API's own rule (`storeNameSchema`, PATCH /stores/{id}'s `name`); the configuration change the
 * form builds is checked by the API's `merchantConfigurationPatchSchema` (store-settings.controller.ts).
 */

/** The form field of each checkout colour. */
export const colorField = (key: CheckoutColorKey) => `color_${key}` as const;

const colorFields = Object.fromEntries(
  CHECKOUT_COLOR_KEYS.map((key) => [colorField(key), z.string().trim().max(32).optional()]),
) as Record<ReturnType<typeof colorField>, z.ZodOptional<z.ZodString>>;

/** POST /settings/stores/:id: the name, the colours (blank: the merchant's), a JSON change, the logo's removal. */
export const storeSettingsForm = z.object({
  name: storeNameSchema,
  ...colorFields,
  configuration: z.string().max(8_000).optional(),
  remove_logo: z.literal('on').optional(),
});

export type StoreSettingsForm = z.infer<typeof storeSettingsForm>;

/** GET /settings/stores: keyset pages in the URL. */
const blankAsUndefined = (value: unknown) => (value === '' ? undefined : value);
export const storeListQuery = z.object({
  cursor: z.preprocess(blankAsUndefined, z.string().uuid().optional()),
  direction: z.preprocess(blankAsUndefined, z.enum(['next', 'previous']).optional()),
});
