import type { ContactInfoInput as ContactInfo, PhoneNumberInput as PhoneNumber } from '@kessai/accounts';
import type { MerchantVerification } from '@kessai/db';
import { optionalField } from '@kessai/presenters';

/**
 * The Verification resource (the SDK's VerificationItem), with Kessai's review beside it: `status`
 * (submitted, approved, rejected) and, once reviewed, `reviewed_on` and a rejection's `review_reason`.
 * The reviewer's name is the operator's and stays in the admin CLI.
 */
export function presentVerification(verification: MerchantVerification) {
  return {
    id: verification.id,
    homepage_url: verification.homepageUrl,
    company_description: verification.companyDescription,
    company_contact_info: verification.companyContactInfo as unknown as ContactInfo,
    business_type: verification.businessType,
    ...optionalField('system_manager_name', verification.systemManagerName),
    ...optionalField(
      'system_manager_number',
      verification.systemManagerNumber as unknown as PhoneNumber | null,
    ),
    ...optionalField('system_manager_email', verification.systemManagerEmail),
    ...optionalField('customer_contact_email', verification.customerContactEmail),
    ...optionalField(
      'customer_contact_number',
      verification.customerContactNumber as unknown as PhoneNumber | null,
    ),
    ...optionalField(
      'recurring_token_request',
      verification.recurringTokenRequest as 'none' | 'bounded' | 'infinite' | null,
    ),
    ...optionalField('recurring_token_request_reason', verification.recurringTokenRequestReason),
    ...optionalField('allow_empty_cvv', verification.allowEmptyCvv),
    created_on: verification.createdOn.toISOString(),
    status: verification.status,
    ...optionalField('reviewed_on', verification.reviewedOn?.toISOString() ?? null),
    ...optionalField('review_reason', verification.reviewReason),
  };
}
