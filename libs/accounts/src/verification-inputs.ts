// The inputs of a merchant's verification (onboarding data), as a front end parsed them (the
// gateway: verification.schemas.ts), with the API's field names (the SDK's VerificationCreateParams).

/** The SDK's PhoneNumber. */
export interface PhoneNumberInput {
  country_code?: string;
  local_number?: string;
}

/** The SDK's ContactInfo: the company's contact and address. */
export interface ContactInfoInput {
  name: string;
  company_name: string;
  phone_number: PhoneNumberInput;
  line1: string;
  line2?: string;
  city: string;
  state: string;
  country: string;
  zip: string;
}

export interface VerificationInput {
  homepage_url: string;
  company_description: string;
  company_contact_info: ContactInfoInput;
  business_type: string;
  system_manager_name: string;
  system_manager_number?: PhoneNumberInput;
  system_manager_email?: string;
  customer_contact_email?: string;
  customer_contact_number?: PhoneNumberInput;
  recurring_token_request?: 'none' | 'bounded' | 'infinite';
  recurring_token_request_reason?: string;
  allow_empty_cvv?: boolean;
}

/** PATCH: any field; `company_contact_info` partly (the keys given replace the stored ones). */
export type VerificationChangesInput = Partial<Omit<VerificationInput, 'company_contact_info'>> & {
  company_contact_info?: Partial<ContactInfoInput>;
};
