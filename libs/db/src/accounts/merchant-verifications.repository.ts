import { Injectable } from '@nestjs/common';
import { ConflictError } from '@kessai/domain';
import type { MerchantVerification, Prisma } from '../generated/prisma/client';
import { PrismaService } from '../prisma.service';

export type { MerchantVerification } from '../generated/prisma/client';

/** The onboarding data a merchant sends: every column but the ids, the review and the timestamps. */
export interface VerificationDetails {
  homepageUrl: string;
  companyDescription: string;
  /** the SDK's ContactInfo, snake_case */
  companyContactInfo: object;
  businessType: string;
  systemManagerName?: string;
  systemManagerNumber?: object;
  systemManagerEmail?: string;
  customerContactEmail?: string;
  customerContactNumber?: object;
  recurringTokenRequest?: string;
  recurringTokenRequestReason?: string;
  allowEmptyCvv?: boolean;
}

/** The operator's review: approved or rejected, by whom, and why (a rejection). */
export interface VerificationReview {
  status: 'approved' | 'rejected';
  by: string;
  reason: string | null;
}

/**
 * A merchant's verification (onboarding data, decision 0049): one row per merchant, its review, and
 * the merchant's `verified` flag, which the review writes in the same transaction.
 */
@Injectable()
export class MerchantVerificationsRepository {
  constructor(private readonly prisma: PrismaService) {}

  findByMerchant(merchantId: string): Promise<MerchantVerification | null> {
    return this.prisma.merchantVerification.findUnique({ where: { merchantId } });
  }

  /** The merchant's first verification; a second answers 409 VERIFICATION_DATA_EXISTS (the unique merchant_id). */
  async create(id: string, merchantId: string, details: VerificationDetails): Promise<MerchantVerification> {
    try {
      return await this.prisma.merchantVerification.create({
        data: {
          // the JSON columns are plain objects, never null
          ...(details as Omit<Prisma.MerchantVerificationUncheckedCreateInput, 'id' | 'merchantId'>),
          id,
          merchantId,
        },
      });
    } catch (error) {
      if ((error as { code?: string }).code === 'P2002') throw new ConflictError('VERIFICATION_DATA_EXISTS');
      throw error;
    }
  }

  /** Changes the fields given; the data is `submitted` for review again. Null: no verification. */
  async update(
    merchantId: string,
    details: Partial<VerificationDetails>,
  ): Promise<MerchantVerification | null> {
    const { count } = await this.prisma.merchantVerification.updateMany({
      where: { merchantId },
      data: { ...(details as Prisma.MerchantVerificationUpdateManyMutationInput), status: 'submitted' },
    });
    return count === 0 ? null : this.findByMerchant(merchantId);
  }

  /** Records the review and sets the merchant verified (approved) or not (rejected), together. Null: none. */
  review(merchantId: string, review: VerificationReview): Promise<MerchantVerification | null> {
    return this.prisma.$transaction(async (tx) => {
      const { count } = await tx.merchantVerification.updateMany({
        where: { merchantId },
        data: {
          status: review.status,
          reviewedBy: review.by,
          reviewedOn: new Date(),
          reviewReason: review.reason,
        },
      });
      if (count === 0) return null;
      await tx.merchant.update({
        where: { id: merchantId },
        data: { verified: review.status === 'approved' },
      });
      return tx.merchantVerification.findUnique({ where: { merchantId } });
    });
  }
}
