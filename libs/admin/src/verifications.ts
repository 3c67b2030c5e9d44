import type { MerchantVerification, MerchantVerificationsRepository } from '@kessai/db';
import { isUuid } from '@kessai/domain';
import { AdminError, type AdminService } from './admin.service';

/**
 * The operator's review of a merchant's verification (onboarding data, decision 0049): show it,
 * approve it (the merchant becomes verified: live mode opens) or reject it with a reason (the
 * merchant is not verified: live mode closes at once). Who reviewed, and when, stay on the row.
 */
export async function showVerification(
  repositories: { verifications: MerchantVerificationsRepository },
  merchantId: string,
) {
  return describeVerification(await requireVerification(repositories, merchantId));
}

export async function reviewVerification(
  repositories: { verifications: MerchantVerificationsRepository },
  admin: AdminService,
  merchantId: string,
  review: { status: 'approved' | 'rejected'; by: string; reason: string | null },
) {
  await requireVerification(repositories, merchantId);
  const reviewed = await repositories.verifications.review(merchantId.toLowerCase(), review);
  if (!reviewed) throw new AdminError(`merchant ${merchantId} has sent no verification`);
  await admin.announceLiveTokens(reviewed.merchantId);
  return describeVerification(reviewed);
}

async function requireVerification(
  repositories: { verifications: MerchantVerificationsRepository },
  merchantId: string,
): Promise<MerchantVerification> {
  const verification = isUuid(merchantId)
    ? await repositories.verifications.findByMerchant(merchantId.toLowerCase())
    : null;
  if (!verification) throw new AdminError(`merchant ${merchantId} has sent no verification`);
  return verification;
}

function describeVerification(verification: MerchantVerification) {
  return {
    id: verification.id,
    merchant_id: verification.merchantId,
    status: verification.status,
    homepage_url: verification.homepageUrl,
    company_description: verification.companyDescription,
    company_contact_info: verification.companyContactInfo,
    business_type: verification.businessType,
    system_manager_name: verification.systemManagerName,
    system_manager_email: verification.systemManagerEmail,
    customer_contact_email: verification.customerContactEmail,
    recurring_token_request: verification.recurringTokenRequest,
    recurring_token_request_reason: verification.recurringTokenRequestReason,
    reviewed_by: verification.reviewedBy,
    reviewed_on: verification.reviewedOn?.toISOString() ?? null,
    review_reason: verification.reviewReason,
    created_on: verification.createdOn.toISOString(),
    updated_on: verification.updatedOn.toISOString(),
  };
}
