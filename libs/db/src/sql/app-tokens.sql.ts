import type { AppTokenScope, ProcessingMode } from '../generated/prisma/enums';
import { defineStatement, pg } from './statement';

/** An app_tokens row by id: authentication reads it for every credential once per cache period. */
export const FIND_APP_TOKEN = defineStatement({
  name: 'app_tokens_find_by_id',
  params: { id: pg.uuid },
  columns: {
    id: pg.text,
    merchant_id: pg.text,
    store_id: pg.nullable(pg.text),
    scope: pg.textOf<AppTokenScope>(),
    mode: pg.textOf<ProcessingMode>(),
    domains: pg.array(pg.text),
    secret_hash: pg.text,
    version: pg.int4,
    revoked_on: pg.nullable(pg.timestamptz),
    created_on: pg.timestamptz,
    updated_on: pg.timestamptz,
  },
  text: (p) => `
    SELECT id::text, merchant_id::text, store_id::text, scope::text, mode::text, domains, secret_hash,
           version, revoked_on, created_on, updated_on
      FROM app_tokens
     WHERE id = ${p.id}`,
});
