-- Generated from libs/db/src/tokens/card-vault.sql.ts by npm run sql:generate: do not edit.

-- card_vault_find_to_rotate
-- params: $1 activeKeyId text, $2 limit int4
-- columns: transaction_token_id text, key_id text, iv bytea, ciphertext bytea, auth_tag bytea
SELECT transaction_token_id::text, key_id, iv, ciphertext, auth_tag
  FROM card_vault
 WHERE key_id <> $1::text
 ORDER BY id
 LIMIT $2::int4;

-- card_vault_rotate_entry
-- params: $1 transactionTokenId uuid, $2 oldKeyId text, $3 oldIv bytea, $4 keyId text, $5 iv bytea, $6 ciphertext bytea, $7 authTag bytea
-- columns: id text
UPDATE card_vault
   SET key_id = $4::text, iv = $5::bytea, ciphertext = $6::bytea, auth_tag = $7::bytea,
       updated_on = now()
 WHERE transaction_token_id = $1::uuid
   AND key_id = $2::text AND iv = $3::bytea
RETURNING id::text;

-- card_vault_count_by_key
-- params: none
-- columns: key_id text, entries int8
SELECT key_id, count(*) AS entries FROM card_vault GROUP BY key_id ORDER BY key_id;
