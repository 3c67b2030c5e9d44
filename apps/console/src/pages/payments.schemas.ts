import { z } from 'zod';
import {
  CHARGE_STATUSES,
  MAX_CHARGE_AMOUNT,
  PAYMENT_TYPES,
  type ChargeStatus,
  type PaymentType,
} from '@kessai/domain';
import { REFUND_REASONS, type RefundReason } from '@kessai/payments';

/** Request schemas of the console's payment pages (query strings and forms, as browsers send them). */

const blankAsUndefined = (value: unknown) => (value === '' ? undefined : value);
const optional = <T extends z.ZodTypeAny>(schema: T) => z.preprocess(blankAsUndefined, schema.optional());
const calendarDate = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/)
  .refine((v) => !Number.isNaN(Date.parse(`${v}T00:00:00Z`)));
const amount = z.coerce.number().int().min(0).max(MAX_CHARGE_AMOUNT);

/** The payments list's filters and page, all in the URL (so a filtered page can be shared). */
export const paymentListQuery = z
  .object({
    status: optional(z.enum(CHARGE_STATUSES)),
    payment_type: optional(z.enum(PAYMENT_TYPES)),
    from: optional(calendarDate),
    to: optional(calendarDate),
    amount_from: optional(amount),
    amount_to: optional(amount),
    email: optional(z.string().trim().max(254)),
    last_four: optional(z.string().regex(/^\d{4}$/)),
    metadata_key: optional(z.string().trim().min(1).max(255)),
    metadata_value: optional(z.string().trim().max(1000)),
    store: optional(z.string().uuid()),
    cursor: optional(z.string().uuid()),
    direction: optional(z.enum(['next', 'previous'])),
  })
  // a metadata filter is a key and its value
  .refine((q) => (q.metadata_key === undefined) === (q.metadata_value === undefined), {
    path: ['metadata_value'],
  });

export type PaymentListQuery = z.infer<typeof paymentListQuery>;

export interface PaymentFilterValues {
  status?: ChargeStatus;
  paymentType?: PaymentType;
  from?: string;
  to?: string;
  amountFrom?: number;
  amountTo?: number;
  email?: string;
  lastFour?: string;
}

/** POST /payments/:id/refunds: the amount in major units as typed, and the form's own refund id. */
export const refundForm = z.object({
  refund_id: z.string().uuid(),
  amount: z.string().trim().min(1).max(32),
  reason: optional(z.enum(REFUND_REASONS)),
  message: optional(z.string().trim().min(1).max(255)),
});

export type RefundForm = z.infer<typeof refundForm> & { reason?: RefundReason };

/** POST /payments/:id/capture: the amount in major units as typed (at most what was authorized). */
export const captureForm = z.object({ amount: z.string().trim().min(1).max(32) });

/** POST /payments/:id/cancel: the form's own cancel id (sending it twice cancels once). */
export const cancelForm = z.object({ cancel_id: z.string().uuid() });

export const modeForm = z.object({ mode: z.enum(['test', 'live']) });

export const signInForm = z.object({
  email: z.string().trim().min(1).max(254),
  password: z.string().min(1).max(256),
});
