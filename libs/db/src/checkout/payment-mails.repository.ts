import { Injectable } from '@nestjs/common';
import { PrismaService } from '../prisma.service';
import {
  CLAIM_DUE_PAYMENT_MAILS,
  FINISH_PAYMENT_MAIL,
  FORGET_PAYMENT_MAIL,
  POSTPONE_PAYMENT_MAIL,
  RECORD_PAYMENT_MAIL,
  SKIP_ORPHAN_PAYMENT_MAILS,
} from './payment-mails.sql';

/** A claimed instructions mail with what it says: the charge, its token's email, its instructions. */
export interface DuePaymentMail {
  chargeId: string;
  lang: string;
  attempts: number;
  merchantId: string;
  storeId: string;
  chargeStatus: string;
  paymentType: string;
  email: string | null;
  amount: bigint;
  currency: string;
  deadline: Date | null;
  issuerToken: Record<string, unknown> | null;
}

/**
 * The link page's payment instructions mails (docs/hosted-checkout.md, "Bank transfer and konbini"):
 * recorded by the gateway, claimed, sent and finished by charge-service's mailer. The statements are
 * payment-mails.sql.ts.
 */
@Injectable()
export class CheckoutPaymentMailsRepository {
  constructor(private readonly prisma: PrismaService) {}

  /** The mail of the charge about to be created under `chargeId`: once per charge. */
  async record(chargeId: string, linkId: string, lang: string): Promise<void> {
    await this.prisma.run(RECORD_PAYMENT_MAIL, { chargeId, linkId, lang });
  }

  /** The charge was refused before it was written: no mail. */
  async forget(chargeId: string): Promise<void> {
    await this.prisma.run(FORGET_PAYMENT_MAIL, { chargeId });
  }

  async claimDue(limit: number, claimSeconds: number): Promise<DuePaymentMail[]> {
    const rows = await this.prisma.run(CLAIM_DUE_PAYMENT_MAILS, { limit, claimSeconds });
    return rows.map((row) => ({
      chargeId: row.charge_id,
      lang: row.lang,
      attempts: row.attempts,
      merchantId: row.merchant_id,
      storeId: row.store_id,
      chargeStatus: row.status,
      paymentType: row.payment_type,
      email: row.email,
      amount: row.amount,
      currency: row.currency,
      deadline: row.expires_on,
      issuerToken: row.issuer_token,
    }));
  }

  /**
   * Sent, skipped (nothing to send) or failed (given up after its attempts); false when the mail was
   * no longer pending.
   */
  async finish(chargeId: string, status: 'sent' | 'skipped' | 'failed'): Promise<boolean> {
    return (await this.prisma.run(FINISH_PAYMENT_MAIL, { chargeId, status })).length === 1;
  }

  /** Skips the pending mails of charges never created after `seconds`; answers how many. */
  async skipOrphans(seconds: number): Promise<number> {
    return (await this.prisma.run(SKIP_ORPHAN_PAYMENT_MAILS, { seconds })).length;
  }

  async postpone(chargeId: string, retrySeconds: number, error: string): Promise<void> {
    await this.prisma.run(POSTPONE_PAYMENT_MAIL, { chargeId, retrySeconds, error: error.slice(0, 500) });
  }
}
