import { z } from 'zod';
import { redirectUrl } from '../http/request.schemas';

/**
 * Request schemas of the verification routes (the SDK's VerificationCreateParams and
 * VerificationUpdateParams, api-reference §5.11), in wire (snake_case) form.
 */

const text = (max: number) => z.string().trim().min(1).max(max);
const email = z.string().trim().email().max(254);

/** The SDK's PhoneNumber: a country calling code and the local number, digits and separators. */
const phoneNumber = z
  .object({
    country_code: z
      .string()
      .trim()
      .regex(/^\+?\d{1,4}$/)
      .optional(),
    local_number: z
      .string()
      .trim()
      .regex(/^[\d\s()-]{1,20}$/)
      .optional(),
  })
  .strict();

const contactInfoFields = {
  name: text(255),
  company_name: text(255),
  phone_number: phoneNumber,
  line1: text(255),
  line2: text(255).optional(),
  city: text(255),
  state: text(255),
  /** ISO 3166-1 alpha-2, upper case after parsing */
  country: z
    .string()
    .trim()
    .regex(/^[A-Za-z]{2}$/)
    .transform((value) => value.toUpperCase()),
  zip: text(20),
};

const optionalFields = {
  system_manager_number: phoneNumber.optional(),
  system_manager_email: email.optional(),
  customer_contact_email: email.optional(),
  customer_contact_number: phoneNumber.optional(),
  recurring_token_request: z.enum(['none', 'bounded', 'infinite']).optional(),
  recurring_token_request_reason: text(2_000).optional(),
  allow_empty_cvv: z.boolean().optional(),
};

const requiredFields = {
  homepage_url: redirectUrl,
  company_description: text(2_000),
  company_contact_info: z.object(contactInfoFields).strict(),
  business_type: text(255),
  system_manager_name: text(255),
};

/** POST /verification: the SDK's required fields (homepage, description, contact, type, manager). */
export const createVerificationSchema = z.object({ ...requiredFields, ...optionalFields }).strict();

/** PATCH /verification: any field; the contact info's keys given replace the stored ones. */
export const updateVerificationSchema = z
  .object({
    homepage_url: requiredFields.homepage_url.optional(),
    company_description: requiredFields.company_description.optional(),
    company_contact_info: z.object(contactInfoFields).partial().strict().optional(),
    business_type: requiredFields.business_type.optional(),
    system_manager_name: requiredFields.system_manager_name.optional(),
    ...optionalFields,
  })
  .strict();
