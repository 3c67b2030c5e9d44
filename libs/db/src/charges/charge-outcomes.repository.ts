import { Injectable } from '@nestjs/common';
import {
  RECONCILABLE_CHARGE_STATUSES,
  type ChargeStatus,
  type ChargeStatusEvent,
  type ChargeTransition,
  type FeeTerms,
} from '@kessai/domain';
import type { CaptureStatus, MatchAmount, PaymentType, ProcessingMode } from '../generated/prisma/enums';
import { PrismaService } from '../prisma.service';
import type { RowOf } from '../sql/statement';
import {
  FIND_CHARGE_TO_RECONCILE,
  FIND_PENDING_CHARGES,
  RECORD_CHARGE_OUTCOMES,
  type ChargeOutcomeInput,
  type VirtualBankAccount,
} from './charge-outcomes.sql';

export type { VirtualBankAccount };
import { feeTermsOfRow } from './fee-terms';
import { RECORD_UNEXECUTED_PROCESSOR_CALL, START_PROCESSOR_CALL } from './processor-failover.sql';

/** A pending charge with what its authorization needs, read in one query. */
export interface PendingCharge {
  id: string;
  mode: ProcessingMode;
  /** minor units */
  amount: bigint;
  currency: string;
  capture: boolean;
  descriptor: string | null;
  /** the request's three_ds object {mode, redirect_endpoint, redirect_id} */
  threeDs: { mode?: string; redirect_endpoint?: string | null } | null;
  /** the card token was authenticated with 3-D Secure at tokenization (its three_ds successful) */
  tokenThreeDsAuthenticated: boolean;
  /** the request's redirect object {endpoint} */
  redirectEndpoint: string | null;
  tokenId: string;
  paymentType: PaymentType;
  /**
   * the processor account its calls go to (decision 0055), its fallback once it failed over
   * (decision 0056); null: the mode's default
   */
  processorAccountId: string | null;
  /** the account it may still fail over to (decision 0056); null: none, or it failed over already */
  fallbackProcessorAccountId: string | null;
  /** card tokens: the card fields stored on the token (never the number) */
  card: { cardholder: string; exp_month: number; exp_year: number } | null;
  /** online tokens */
  brand: string | null;
  callMethod: string | null;
  /** qr_scan tokens */
  scannedQr: string | null;
  /** apple_pay tokens: the device's encrypted payment data as Apple made it (decision 0067) */
  applePayPaymentData: Record<string, unknown> | null;
  /** paidy tokens: the consumer's Paidy token and where the goods go (decision 0068) */
  paidy: { token: string; shippingAddress: Record<string, unknown> } | null;
  /** konbini tokens: where and who pays */
  konbini: { convenienceStore: string; customerName: string; phoneNumber: string | null } | null;
  /** the token's email, for processors that send the payment instructions themselves (KOMOJU) */
  email: string | null;
  /** bank transfer and konbini: the payment deadline, set when the charge was accepted */
  expiresOn: Date | null;
  /** card tokens: the encrypted PAN */
  vault: { keyId: string; iv: Uint8Array; ciphertext: Uint8Array; authTag: Uint8Array } | null;
  /** the fee terms it was accepted under; null on charges older than fees */
  feeTerms: FeeTerms | null;
}

/** A charge whose fate the processor knows better than we do (awaiting, or pending too long). */
export interface ChargeToReconcile {
  id: string;
  status: ChargeStatus;
  mode: ProcessingMode;
  paymentType: PaymentType;
  tokenId: string;
  processorReference: string | null;
  expiresOn: Date | null;
  /** a cancel is voiding the payment: a voided payment is its doing, and it records it */
  cancelPending: boolean;
  /** the requested amount, minor units */
  amount: bigint;
  /** bank transfer and konbini: the match_amount rule it was accepted under */
  matchAmount: MatchAmount | null;
  /** the account that took it (decisions 0055, 0056); null: its mode's default processor */
  processorAccountId: string | null;
  /** the fee terms it was accepted under; null on charges older than fees */
  feeTerms: FeeTerms | null;
}

export interface PaymentErrorColumns {
  code: number;
  message: string;
  detail: string | null;
}

/** What a transition writes; columns left undefined keep their value. */
export interface ChargeOutcome {
  status: ChargeStatus;
  error?: PaymentErrorColumns;
  processorReference?: string;
  /** minor units */
  chargedAmount?: bigint;
  /** the fee of chargedAmount (chargeFee), minor units of the charge's currency */
  feeAmount?: bigint;
  captureStatus?: CaptureStatus;
  /** GET .../issuer_token: {issuer_token, call_method, payload, payment_type} */
  issuerToken?: Record<string, unknown>;
  /** GET .../three_ds/issuer_token: ThreeDsIssuerToken */
  threeDsIssuerToken?: Record<string, unknown>;
  expiresOn?: Date;
  /**
   * A bank transfer's virtual account, as the processor gave it out for this charge: kept on the
   * charge's (one-time) transaction token too, whose `data` shows it from then on
   */
  virtualBankAccount?: VirtualBankAccount;
}

/** One charge's outcome for `recordMany`. */
export interface RecordedOutcome {
  chargeId: string;
  outcome: ChargeOutcome;
  /** the event announcing the move to outcome.status: the charge machine's (chargeTransition) */
  event: ChargeStatusEvent;
  /** the outbox event that led here, whose correlation id the new event carries */
  causeEventId: string | null;
}

/**
 * The processor's outcomes of charges: what charge-service's authorization (process_charge) and
 * reconciliation (reconcile_charge) read and record. Each outcome is one conditional statement that
 * moves the charge only from the status it was read in and, in the same statement (so the same
 * transaction), appends the outbox event when and only when the row moved. A worker that lost a race
 * writes nothing. The moves and their events are the charge machine's (@kessai/domain), passed in by
 * the caller; the statements are charge-outcomes.sql.ts. Plain SQL because this is the hot path: one
 * round trip to read, one to record. Captures' outcomes: capture-outcomes.repository.ts; the sweep's
 * reads: charge-sweeps.repository.ts.
 */
@Injectable()
export class ChargeOutcomesRepository {
  constructor(private readonly prisma: PrismaService) {}

  /** The charge if it is still pending, with its token's payment data; null otherwise. */
  async findPending(chargeId: string): Promise<PendingCharge | null> {
    return (await this.findPendingMany([chargeId]))[0] ?? null;
  }

  /** Those of the charges that are still pending, with their tokens' payment data, in one query. */
  async findPendingMany(chargeIds: readonly string[]): Promise<PendingCharge[]> {
    const rows = await this.prisma.run(FIND_PENDING_CHARGES, { ids: chargeIds });
    return rows.map(pendingChargeOf);
  }

  /**
   * Makes `transition` (the charge machine's move from the status the charge was read in) with the
   * outcome, and appends its event, in one statement. False when the charge was no longer in
   * `transition.from` (someone else recorded it): then nothing is written.
   * `causeEventId`: the outbox event that led here, whose correlation id the new event carries.
   */
  async record(
    chargeId: string,
    transition: ChargeTransition,
    outcome: Omit<ChargeOutcome, 'status'>,
    causeEventId: string | null = null,
  ): Promise<boolean> {
    const moved = await this.recordMany(
      [transition.from],
      [{ chargeId, outcome: { ...outcome, status: transition.to }, event: transition.event, causeEventId }],
    );
    return moved.has(chargeId);
  }

  /**
   * `record` for several charges in one statement (atomic as a whole): each moves from one of
   * `from` to its outcome, with its event. Resolves to the ids of the charges that moved; the others
   * were no longer in `from` and nothing was written for them. A charge listed twice is recorded
   * with its first outcome.
   */
  async recordMany(
    from: readonly ChargeStatus[],
    outcomes: readonly RecordedOutcome[],
  ): Promise<Set<string>> {
    const seen = new Set<string>();
    const input: ChargeOutcomeInput[] = [];
    for (const { chargeId, outcome, event, causeEventId } of outcomes) {
      if (seen.has(chargeId)) continue;
      seen.add(chargeId);
      input.push({
        id: chargeId,
        status: outcome.status,
        event_type: event,
        error_code: outcome.error?.code ?? null,
        error_message: outcome.error?.message ?? null,
        error_detail: outcome.error?.detail ?? null,
        processor_reference: outcome.processorReference ?? null,
        charged_amount: outcome.chargedAmount?.toString() ?? null,
        fee_amount: outcome.feeAmount?.toString() ?? null,
        capture_status: outcome.captureStatus ?? null,
        issuer_token: outcome.issuerToken ?? null,
        three_ds_issuer_token: outcome.threeDsIssuerToken ?? null,
        expires_on: outcome.expiresOn?.toISOString() ?? null,
        virtual_bank_account: outcome.virtualBankAccount ?? null,
        cause_event_id: causeEventId,
      });
    }
    if (input.length === 0) return new Set();
    // rows in id order, so that two statements touching the same charges lock them in one order
    input.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    const rows = await this.prisma.run(RECORD_CHARGE_OUTCOMES, {
      outcomes: input,
      ids: input.map((row) => row.id),
      from,
    });
    return new Set(rows.map((row) => row.id));
  }

  /**
   * Counts one more authorization call of a pending charge with a fallback before it is sent to
   * its account (decision 0056). false: nothing may be sent there (the charge failed over, or is
   * no longer pending): read it again.
   */
  async startProcessorCall(chargeId: string): Promise<boolean> {
    return (await this.prisma.run(START_PROCESSOR_CALL, { chargeId })).length > 0;
  }

  /**
   * Counts a call its account provably did not execute, failing the charge over to its fallback
   * when no other call of it may have been (decision 0056). true: it failed over now, and its calls
   * go to the fallback from here on.
   */
  async recordUnexecutedProcessorCall(chargeId: string): Promise<boolean> {
    const rows = await this.prisma.run(RECORD_UNEXECUTED_PROCESSOR_CALL, { chargeId });
    return rows[0]?.failed_over ?? false;
  }

  /** A charge whose outcome the processor may know better (pending, awaiting); null when it is neither. */
  async findToReconcile(chargeId: string): Promise<ChargeToReconcile | null> {
    const rows = await this.prisma.run(FIND_CHARGE_TO_RECONCILE, {
      chargeId,
      statuses: RECONCILABLE_CHARGE_STATUSES,
    });
    const row = rows[0];
    return row
      ? {
          id: row.id,
          status: row.status,
          mode: row.mode,
          paymentType: row.payment_type,
          tokenId: row.token_id,
          processorReference: row.processor_reference,
          expiresOn: row.expires_on,
          cancelPending: row.cancel_pending,
          amount: row.amount,
          matchAmount: row.match_amount,
          processorAccountId: row.processor_account_id,
          feeTerms: feeTermsOfRow(row),
        }
      : null;
  }
}

function pendingChargeOf(row: RowOf<typeof FIND_PENDING_CHARGES.columns>): PendingCharge {
  return {
    id: row.id,
    mode: row.mode,
    amount: row.amount,
    currency: row.currency,
    capture: row.capture,
    descriptor: row.descriptor,
    threeDs: row.three_ds,
    tokenThreeDsAuthenticated: row.token_three_ds_authenticated,
    redirectEndpoint: row.redirect_endpoint,
    tokenId: row.token_id,
    paymentType: row.payment_type,
    processorAccountId: row.processor_account_id,
    fallbackProcessorAccountId: row.fallback_processor_account_id,
    card:
      row.cardholder !== null && row.exp_month !== null && row.exp_year !== null
        ? { cardholder: row.cardholder, exp_month: row.exp_month, exp_year: row.exp_year }
        : null,
    brand: row.brand,
    callMethod: row.call_method,
    scannedQr: row.scanned_qr,
    applePayPaymentData: row.apple_pay_payment_data,
    paidy:
      row.paidy_token !== null && row.paidy_shipping_address !== null
        ? { token: row.paidy_token, shippingAddress: row.paidy_shipping_address }
        : null,
    konbini:
      row.convenience_store !== null && row.customer_name !== null
        ? {
            convenienceStore: row.convenience_store,
            customerName: row.customer_name,
            phoneNumber: row.phone_number,
          }
        : null,
    email: row.email,
    expiresOn: row.expires_on,
    vault:
      row.key_id && row.iv && row.ciphertext && row.auth_tag
        ? { keyId: row.key_id, iv: row.iv, ciphertext: row.ciphertext, authTag: row.auth_tag }
        : null,
    feeTerms: feeTermsOfRow(row),
  };
}
