import { Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import {
  MerchantVerificationsRepository,
  type MerchantVerification,
  type VerificationDetails,
} from '@kessai/db';
import { NotFoundError, PermissionError } from '@kessai/domain';
import type { VerificationChangesInput, VerificationInput } from './verification-inputs';

/** Who may read and send a merchant's verification: merchant credentials (any mode), or its users. */
export interface VerificationActor {
  merchantId: string;
  storeId: string | null;
}

/**
 * A merchant's verification (the SDK's verification.get/create/update; docs/merchants.md, decision
 * 0049): the onboarding data the operator reviews. The operator's approval (admin CLI) sets the
 * merchant verified, which opens live mode; the data itself is the merchant's alone: another
 * merchant's is never addressed (the merchant is the caller's).
 */
@Injectable()
export class VerificationService {
  constructor(private readonly verifications: MerchantVerificationsRepository) {}

  /** The merchant a caller speaks for; a store credential gets 403 (onboarding is merchant-wide). */
  merchantOf(actor: VerificationActor): string {
    if (actor.storeId !== null) throw new PermissionError('INVALID_PERMISSIONS');
    return actor.merchantId;
  }

  async find(merchantId: string): Promise<MerchantVerification> {
    const verification = await this.verifications.findByMerchant(merchantId);
    if (!verification) throw new NotFoundError('verification');
    return verification;
  }

  /** The first submission; a second is 409 VERIFICATION_DATA_EXISTS (change it with `update`). */
  create(merchantId: string, input: VerificationInput): Promise<MerchantVerification> {
    return this.verifications.create(randomUUID(), merchantId, detailsOf(input));
  }

  /**
   * Changes the fields given (the contact info's keys given replace the stored ones); the data is
   * `submitted` for the operator's review again. The merchant stays as verified as it was: only the
   * operator's rejection closes live mode.
   */
  async update(merchantId: string, input: VerificationChangesInput): Promise<MerchantVerification> {
    const stored = await this.find(merchantId);
    const { company_contact_info: contact, ...rest } = input;
    const changes: Partial<VerificationDetails> = detailsOf(rest);
    if (contact !== undefined)
      changes.companyContactInfo = { ...(stored.companyContactInfo as object), ...contact };
    const updated = await this.verifications.update(merchantId, changes);
    if (!updated) throw new NotFoundError('verification');
    return updated;
  }
}

/** The columns of the fields given (undefined: not given, left out). */
function detailsOf(input: VerificationInput): VerificationDetails;
function detailsOf(
  input: Omit<VerificationChangesInput, 'company_contact_info'>,
): Partial<VerificationDetails>;
function detailsOf(input: VerificationChangesInput): Partial<VerificationDetails> {
  const details: Partial<VerificationDetails> = {
    homepageUrl: input.homepage_url,
    companyDescription: input.company_description,
    companyContactInfo: input.company_contact_info,
    businessType: input.business_type,
    systemManagerName: input.system_manager_name,
    systemManagerNumber: input.system_manager_number,
    systemManagerEmail: input.system_manager_email,
    customerContactEmail: input.customer_contact_email,
    customerContactNumber: input.customer_contact_number,
    recurringTokenRequest: input.recurring_token_request,
    recurringTokenRequestReason: input.recurring_token_request_reason,
    allowEmptyCvv: input.allow_empty_cvv,
  };
  return Object.fromEntries(Object.entries(details).filter(([, value]) => value !== undefined));
}
