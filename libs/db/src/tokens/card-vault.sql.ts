import { defineStatement, pg } from '../sql/statement';

/**
 * The card vault's rotation (docs/operations.md, "Rotate keys"): entries still encrypted with
 * another key than the active one, a page at a time, and one entry moved to the active key — only
 * while it is as it was read (its key and IV), so that two rotations at once never lose an entry.
 */
export const FIND_VAULT_ENTRIES_TO_ROTATE = defineStatement({
  name: 'card_vault_find_to_rotate',
  params: { activeKeyId: pg.text, limit: pg.int4 },
  columns: {
    transaction_token_id: pg.text,
    key_id: pg.text,
    iv: pg.bytea,
    ciphertext: pg.bytea,
    auth_tag: pg.bytea,
  },
  text: (p) => `
    SELECT transaction_token_id::text, key_id, iv, ciphertext, auth_tag
      FROM card_vault
     WHERE key_id <> ${p.activeKeyId}
     ORDER BY id
     LIMIT ${p.limit}`,
});

export const ROTATE_VAULT_ENTRY = defineStatement({
  name: 'card_vault_rotate_entry',
  params: {
    transactionTokenId: pg.uuid,
    oldKeyId: pg.text,
    oldIv: pg.bytea,
    keyId: pg.text,
    iv: pg.bytea,
    ciphertext: pg.bytea,
    authTag: pg.bytea,
  },
  columns: { id: pg.text },
  text: (p) => `
    UPDATE card_vault
       SET key_id = ${p.keyId}, iv = ${p.iv}, ciphertext = ${p.ciphertext}, auth_tag = ${p.authTag},
           updated_on = now()
     WHERE transaction_token_id = ${p.transactionTokenId}
       AND key_id = ${p.oldKeyId} AND iv = ${p.oldIv}
    RETURNING id::text`,
});

/** How many entries each key encrypts. */
export const COUNT_VAULT_ENTRIES_BY_KEY = defineStatement({
  name: 'card_vault_count_by_key',
  params: {},
  columns: { key_id: pg.text, entries: pg.int8 },
  text: () => `SELECT key_id, count(*) AS entries FROM card_vault GROUP BY key_id ORDER BY key_id`,
});
