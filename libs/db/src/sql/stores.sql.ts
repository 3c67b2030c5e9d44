import type { Prisma } from '../generated/prisma/client';
import { defineStatement, pg } from './statement';

/**
 * What creating a transaction token needs of its store and merchant; no row when the store is not the
 * merchant's or is deleted.
 */
export const FIND_STORE_TOKEN_SETTINGS = defineStatement({
  name: 'stores_find_token_settings',
  params: { storeId: pg.uuid, merchantId: pg.uuid },
  columns: {
    pci_dss_compliant: pg.bool,
    store_configuration: pg.jsonb<Prisma.JsonValue>(),
    merchant_configuration: pg.jsonb<Prisma.JsonValue>(),
  },
  text: (p) => `
    SELECT m.pci_dss_compliant, s.configuration AS store_configuration,
           m.configuration AS merchant_configuration
      FROM stores s JOIN merchants m ON m.id = s.merchant_id
     WHERE s.id = ${p.storeId} AND m.id = ${p.merchantId} AND s.deleted_on IS NULL`,
});
