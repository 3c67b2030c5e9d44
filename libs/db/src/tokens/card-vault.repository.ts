import { type PrismaService } from '../prisma.service';
import {
  COUNT_VAULT_ENTRIES_BY_KEY,
  FIND_VAULT_ENTRIES_TO_ROTATE,
  ROTATE_VAULT_ENTRY,
} from './card-vault.sql';

/** A stored card number as the vault encrypted it (libs/vault's EncryptedCardNumber). */
export interface StoredVaultEntry {
  transactionTokenId: string;
  keyId: string;
  iv: Uint8Array;
  ciphertext: Uint8Array;
  authTag: Uint8Array;
}

/** The card_vault table for its rotation (the admin CLI's vault:rotate). */
export class CardVaultRepository {
  constructor(private readonly prisma: PrismaService) {}

  /** Up to `limit` entries encrypted with another key than `activeKeyId`. */
  async findToRotate(activeKeyId: string, limit: number): Promise<StoredVaultEntry[]> {
    const rows = await this.prisma.run(FIND_VAULT_ENTRIES_TO_ROTATE, { activeKeyId, limit });
    return rows.map((row) => ({
      transactionTokenId: row.transaction_token_id,
      keyId: row.key_id,
      iv: row.iv,
      ciphertext: row.ciphertext,
      authTag: row.auth_tag,
    }));
  }

  /** Replaces `old` by `next` (same token); false when the entry changed since it was read. */
  async replace(old: StoredVaultEntry, next: Omit<StoredVaultEntry, 'transactionTokenId'>): Promise<boolean> {
    const rows = await this.prisma.run(ROTATE_VAULT_ENTRY, {
      transactionTokenId: old.transactionTokenId,
      oldKeyId: old.keyId,
      oldIv: old.iv,
      keyId: next.keyId,
      iv: next.iv,
      ciphertext: next.ciphertext,
      authTag: next.authTag,
    });
    return rows.length > 0;
  }

  async countByKey(): Promise<Record<string, number>> {
    const rows = await this.prisma.run(COUNT_VAULT_ENTRIES_BY_KEY, {});
    return Object.fromEntries(rows.map((row) => [row.key_id, Number(row.entries)]));
  }
}
