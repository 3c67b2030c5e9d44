import type { AppTokenScope, ProcessingMode } from '../generated/prisma/enums';
import { defineStatement, pg } from '../sql/statement';

/**
 * An app_tokens row by id, and whether its merchant is verified (live mode's gate, decision 0049):
 * authentication reads it for every credential once per cache period.
 */
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
    issued_by: pg.nullable(pg.text),
    revoked_on: pg.nullable(pg.timestamptz),
    created_on: pg.timestamptz,
    updated_on: pg.timestamptz,
    merchant_verified: pg.bool,
  },
  text: (p) => `
    SELECT t.id::text, t.merchant_id::text, t.store_id::text, t.scope::text, t.mode::text, t.domains,
           t.secret_hash, t.version, t.issued_by::text, t.revoked_on, t.created_on, t.updated_on,
           m.verified AS merchant_verified
      FROM app_tokens t
      JOIN merchants m ON m.id = t.merchant_id
     WHERE t.id = ${p.id}`,
});

/**
 * The issuing token's row, held FOR SHARE by an issuance until it commits: a revocation of the
 * issuer (which locks it FOR UPDATE before it walks what it issued) then waits for the new token to
 * be committed and revokes it too, and an issuance after the revocation finds its issuer revoked
 * (decision 0028). No row: the issuer does not exist.
 */
export const LOCK_ISSUER = defineStatement({
  name: 'app_tokens_lock_issuer',
  params: { id: pg.uuid },
  columns: { revoked: pg.bool },
  text: (p) => `
    SELECT revoked_on IS NOT NULL AS revoked FROM app_tokens WHERE id = ${p.id} FOR SHARE`,
});

/** The root's own rule of REVOKE_APP_TOKEN_TREE: an active token, of the owner when `owned`. */
const REVOCATION_ROOT = (p: { id: string; owned: string; merchantId: string; storeId: string }) => `
      SELECT id
        FROM app_tokens
       WHERE id = ${p.id}
         AND revoked_on IS NULL
         AND (NOT ${p.owned} OR (merchant_id = ${p.merchantId} AND store_id IS NOT DISTINCT FROM ${p.storeId}))`;

/**
 * What a revocation will revoke, locked before it does (ids in id order, FOR UPDATE): the root and
 * every token it issued, transitively, as committed now. The revocation locks again until the walk
 * finds no token it has not locked: an issuance holds its issuer FOR SHARE until it commits, so once
 * every node is locked no token can be issued under the tree, and the revocation's own walk sees
 * every one (decision 0028).
 */
export const LOCK_APP_TOKEN_TREE = defineStatement({
  name: 'app_tokens_lock_tree',
  params: {
    id: pg.uuid,
    owned: pg.bool,
    merchantId: pg.nullable(pg.uuid),
    storeId: pg.nullable(pg.uuid),
  },
  columns: { id: pg.text },
  text: (p) => `
    WITH RECURSIVE root AS (${REVOCATION_ROOT(p)}
    ), tree AS (
      SELECT id FROM root
      UNION
      SELECT child.id FROM app_tokens child JOIN tree ON child.issued_by = tree.id
    )
    SELECT id::text AS id FROM app_tokens WHERE id IN (SELECT id FROM tree) ORDER BY id FOR UPDATE`,
});

/**
 * Revokes an active token and every token it issued, transitively (docs/decisions/0028), in one
 * statement: a leaked token's offspring die with it. `owned` limits the token to one owner (the
 * store, or the merchant itself when storeId is null: an API caller's own scope); the operator
 * passes false. Tokens revoked before keep their first revocation time but are walked through,
 * so a token issued by a revoked one is revoked too. Answers the ids it revoked, the named token
 * first; none when the named token is not an active one of the owner.
 */
export const REVOKE_APP_TOKEN_TREE = defineStatement({
  name: 'app_tokens_revoke_tree',
  params: {
    id: pg.uuid,
    owned: pg.bool,
    merchantId: pg.nullable(pg.uuid),
    storeId: pg.nullable(pg.uuid),
    at: pg.timestamptz,
  },
  columns: { id: pg.text },
  text: (p) => `
    WITH RECURSIVE root AS (${REVOCATION_ROOT(p)}
    ), tree AS (
      SELECT id, 0 AS depth FROM root
      UNION
      SELECT child.id, tree.depth + 1
        FROM app_tokens child
        JOIN tree ON child.issued_by = tree.id
    ), revoked AS (
      UPDATE app_tokens
         SET revoked_on = ${p.at}, updated_on = ${p.at}
       WHERE id IN (SELECT id FROM tree)
         AND revoked_on IS NULL
      RETURNING id
    )
    SELECT revoked.id::text
      FROM revoked
      JOIN tree USING (id)
     ORDER BY tree.depth, revoked.id`,
});
