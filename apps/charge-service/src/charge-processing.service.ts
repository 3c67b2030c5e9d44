import { Inject, Injectable } from '@nestjs/common';
import { SensitiveCardData } from '@kessai/cards';
import { APP_CONFIG, type AppConfig } from '@kessai/config';
import { CHARGE_REQUESTED, CHARGES_QUEUE } from '@kessai/contracts';
import {
  ChargeOutcomesRepository,
  DeferredPaymentsRepository,
  type ChargeOutcome,
  type ChargeToReconcile,
  type PendingCharge,
  type RecordedOutcome,
} from '@kessai/db';
import {
  amountMatches,
  CAPTURABLE_CHARGE_STATUS,
  captureTransition,
  chargeFee,
  chargeTransition,
  isDeferredPaymentType,
  type ChargeStatus,
  type FeeTerms,
} from '@kessai/domain';
import { LOGGER, withCorrelation, type Logger } from '@kessai/observability';
import { Coalescer } from '@kessai/runtime';
import {
  type AuthorizeResult,
  type DeferredPaymentResult,
  fromProcessorAmount,
  isProcessorAmount,
  isRetryableProcessorError,
  type OperatorCallMethod,
  type DeferredPaymentMethod,
  type OperatorPaymentResult,
  paymentError,
  type PaymentErrorDetails,
  type PaymentProcessor,
  type ProcessorPayment,
  ProcessorRequestRejectedError,
  type ThreeDsMode,
  toProcessorAmount,
} from '@kessai/processor';
import { effectiveConfiguration, extendedDeadline } from '@kessai/store-configuration';
import { CardVault, PendingCvvStore, VaultIntegrityError } from '@kessai/vault';
import { ChargeJobs } from './charge-jobs';
import { ChargeMetrics } from './charge-metrics';

import { PaymentProcessors } from '@kessai/processor';

/** A charge to process and the outbox event that asked for it. */
export interface ChargeRequest {
  chargeId: string;
  causeEventId: string | null;
  /** the request the charge comes from: its log lines carry it */
  correlationId?: string | null;
}

/**
 * Thrown to let BullMQ retry the job later: the processor has no final outcome for the payment yet
 * (it has not executed the request, or the customer has still to act), and nothing is recorded.
 * Not libs/db's WriteOutcomeUnknownError, a write of ours whose commit is unknown.
 */
export class RetryLaterError extends Error {}

/** HTTP statuses of a refusal that means "this key is being executed right now", not "refused". */
const IN_PROGRESS_STATUSES: readonly number[] = [409, 423];

const CALL_METHODS: readonly string[] = ['http_get', 'http_get_mobile', 'http_post', 'sdk', 'web', 'app'];

/** the status process_charge reads charges in (findPending), which their outcomes move them from */
const PENDING: ChargeStatus = 'pending';

/**
 * Takes charges to their outcome through the processor (docs/charges.md, "charge-service"). Every
 * method reloads the row and does nothing when the work no longer applies, and records through one
 * conditional statement, so a job that runs twice, concurrently or after a crash, changes nothing
 * the second time. The processor is keyed by the charge id (capture id for captures) and executes
 * each key once, so a repeat never charges twice.
 */
@Injectable()
export class ChargeProcessingService {
  readonly #awaitingExpiryMs: number;
  /** outcomes of pending charges recorded concurrently share statements (one round trip, one commit) */
  readonly #pendingOutcomes: Coalescer<RecordedOutcome, boolean>;

  constructor(
    private readonly charges: ChargeOutcomesRepository,
    private readonly deferredPayments: DeferredPaymentsRepository,
    private readonly processors: PaymentProcessors,
    private readonly vault: CardVault,
    private readonly cvvs: PendingCvvStore,
    private readonly jobs: ChargeJobs,
    private readonly metrics: ChargeMetrics,
    @Inject(LOGGER) private readonly logger: Logger,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    this.#awaitingExpiryMs = config.CHARGE_AWAITING_EXPIRY_SECONDS * 1000;
    this.#pendingOutcomes = new Coalescer(
      async (outcomes) => {
        const moved = await this.charges.recordMany([PENDING], outcomes);
        return outcomes.map((outcome) => moved.has(outcome.chargeId));
      },
      { maxItems: 200, maxInFlight: 2 },
    );
  }

  /** process_charge: authorize a pending charge (or open its operator payment) and record the outcome. */
  async processCharge(chargeId: string, causeEventId: string | null = null): Promise<void> {
    const charge = await this.charges.findPending(chargeId);
    if (charge) await this.#process(charge, causeEventId);
  }

  /**
   * process_charges: the charges of one relay batch, read in one query and processed side by side.
   * A charge whose outcome stays unknown (the processor unreachable past its retries, or any other
   * failure) does not hold back or repeat the others: it continues as its own process_charge job,
   * retried with the queue's backoff. Only when that hand-over fails does the batch job fail, to be
   * retried as a whole (the charges already recorded are no longer pending, so are skipped).
   */
  async processCharges(requests: readonly ChargeRequest[]): Promise<void> {
    // a charge listed twice is processed once, for its first event
    const first = new Map<string, ChargeRequest>();
    for (const request of requests) if (!first.has(request.chargeId)) first.set(request.chargeId, request);
    const causes = new Map([...first].map(([chargeId, request]) => [chargeId, request.causeEventId]));
    const correlationOf = (chargeId: string) => first.get(chargeId)?.correlationId ?? null;
    const pending = await this.charges.findPendingMany([...first.keys()]);
    const settled = await Promise.allSettled(
      pending.map((charge) =>
        withCorrelation(correlationOf(charge.id), () => this.#process(charge, causes.get(charge.id) ?? null)),
      ),
    );
    const unfinished: PendingCharge[] = [];
    settled.forEach((result, i) => {
      const charge = pending[i];
      if (result.status === 'fulfilled' || !charge) return;
      unfinished.push(charge);
      this.logger.warn(
        { chargeId: charge.id, err: result.reason as unknown },
        'charge outcome unknown; retrying it alone',
      );
    });
    await this.jobs.add(
      unfinished.map((charge) => ({
        name: 'process_charge' as const,
        chargeId: charge.id,
        causeEventId: causes.get(charge.id) ?? null,
        eventType: CHARGE_REQUESTED,
        idParts: ['retry'],
        delayMs: CHARGES_QUEUE.jobOptions.backoff.delay,
        correlationId: correlationOf(charge.id),
      })),
    );
  }

  async #process(charge: PendingCharge, causeEventId: string | null): Promise<void> {
    const outcome = await this.#authorize(charge);
    // The processor has answered: the authorization the CVV served is over. Forgotten before the
    // outcome is recorded, so that no crash leaves it behind; a repeat after such a crash is
    // answered from the processor's record of the reference, which needs no CVV.
    if (charge.paymentType === 'card') await this.cvvs.discard(charge.tokenId, charge.id);
    // the machine's move (and its event); a move it refuses is a defect here, never written
    const { event } = chargeTransition(PENDING, outcome.status);
    const recorded = await this.#pendingOutcomes.submit({
      chargeId: charge.id,
      outcome,
      event,
      causeEventId,
    });
    if (recorded) this.metrics.chargeMoved(outcome.status);
    // debug: one line per charge is too many at full rate; transitions are in the outbox anyway
    this.logger.debug({ chargeId: charge.id, status: outcome.status, recorded }, 'charge processed');
  }

  /**
   * reconcile_charge: an awaiting (or pending) charge is looked up at the processor and moved on
   * when the processor knows its fate; one past expires_on is voided and failed.
   */
  async reconcileCharge(chargeId: string, causeEventId: string | null = null): Promise<void> {
    const charge = await this.charges.findToReconcile(chargeId);
    if (!charge) {
      await this.#recordMoneyAfterEnd(chargeId, causeEventId);
      return;
    }
    // While a cancel runs, only the cancel moves the charge (canceled, or back as it was, asking for
    // this reconciliation again with charge_reconcile_requested): what the processor holds now may
    // be the cancel's void, or a payment the void is about to undo.
    if (charge.cancelPending) return;
    const processor = this.processors.forMode(charge.mode);
    if (!processor) return;
    const context = { chargeId, operation: 'reconcile' };
    const found = await this.processors.retrying(() => processor.status(charge.id), this.logger, context);
    const expired =
      charge.status === 'awaiting' && charge.expiresOn !== null && charge.expiresOn <= new Date();

    let outcome: ChargeOutcome | null = null;
    if (!found.found) {
      // nothing was ever executed: a pending charge is process_charge's business; an awaiting one
      // whose payment the processor forgot can only end, and without money taken
      if (expired) outcome = failed(expiryError(charge));
    } else {
      outcome = await this.#deferredOutcome(found.payment, charge, causeEventId);
      outcome ??= outcomeOfPayment(found.payment, charge);
      if (!outcome && expired) {
        // a store with automatic extension: the charge awaits until a later deadline instead
        if (isDeferredKind(found.payment.kind) && (await this.#extendAtDeadline(charge, causeEventId)))
          return;
        outcome = await this.#expire(processor, charge, found.payment);
      }
    }
    if (!outcome) return;
    if (charge.paymentType === 'card') await this.cvvs.discard(charge.tokenId, charge.id);
    const move = chargeTransition(charge.status, outcome.status);
    const recorded = await this.charges.record(charge.id, move, outcome, causeEventId);
    if (recorded) this.metrics.chargeMoved(outcome.status);
    this.logger.info({ chargeId, status: outcome.status, recorded }, 'charge reconciled');
  }

  /**
   * capture_charge: capture the charge's pending capture at the processor, keyed by the capture id.
   * Captured: the charge becomes successful with charged_amount = the captured amount. Refused: the
   * capture fails with the processor's error and the charge stays authorized (the hold is the
   * processor's; nothing was taken).
   */
  async captureCharge(chargeId: string, causeEventId: string | null = null): Promise<void> {
    const capture = await this.charges.findPendingCapture(chargeId);
    if (!capture) return;
    const processor = this.processors.forMode(capture.mode);
    const refuse = async (reason: string) => {
      const recorded = await this.charges.recordCaptureFailed(
        capture.id,
        captureTransition('pending', 'failed'),
        paymentError('PROCESSING_ERROR', reason),
      );
      if (recorded) this.metrics.captureEnded('failed');
    };
    if (capture.chargeStatus !== CAPTURABLE_CHARGE_STATUS || !capture.processorReference || !processor) {
      await refuse(
        processor
          ? `the charge is ${capture.chargeStatus}, not authorized`
          : 'no live processor is configured',
      );
      return;
    }
    if (!isProcessorAmount(capture.amount)) {
      await refuse('the amount is beyond what the processor accepts');
      return;
    }
    const processorReference = capture.processorReference;
    const amount = toProcessorAmount(capture.amount);
    let result;
    try {
      result = await this.processors.retrying(
        () =>
          processor.capture({
            processorReference,
            idempotencyKey: capture.id,
            amount,
            currency: capture.currency,
          }),
        this.logger,
        { chargeId, captureId: capture.id },
      );
    } catch (error) {
      if (!(error instanceof ProcessorRequestRejectedError)) throw error;
      this.logger.error(
        { chargeId, captureId: capture.id, httpStatus: error.httpStatus, type: error.type },
        'capture refused',
      );
      result = {
        outcome: 'rejected' as const,
        error: paymentError('PROCESSING_ERROR', 'the processor refused the capture request'),
      };
    }
    const recorded =
      result.outcome === 'captured'
        ? await this.charges.recordCaptured(
            capture.id,
            fromProcessorAmount(result.capturedAmount),
            feeOf(fromProcessorAmount(result.capturedAmount), capture.feeTerms),
            {
              capture: captureTransition('pending', 'successful'),
              charge: chargeTransition(capture.chargeStatus, 'successful'),
            },
            causeEventId,
          )
        : await this.charges.recordCaptureFailed(
            capture.id,
            captureTransition('pending', 'failed'),
            result.error,
          );
    if (recorded) {
      this.metrics.captureEnded(result.outcome === 'captured' ? 'successful' : 'failed');
      if (result.outcome === 'captured') this.metrics.chargeMoved('successful');
    }
    this.logger.info({ chargeId, captureId: capture.id, outcome: result.outcome, recorded }, 'capture done');
  }

  /** The outcome of a pending charge, from the processor's answer only; throws while it is unknown. */
  async #authorize(charge: PendingCharge): Promise<ChargeOutcome> {
    const processor = this.processors.forMode(charge.mode);
    if (!processor) return errored('no live processor is configured');
    const context = { chargeId: charge.id, paymentType: charge.paymentType };
    let call: () => Promise<ProcessorAnswer>;
    try {
      const prepared = await this.#prepare(processor, charge);
      if (typeof prepared === 'string') return errored(prepared);
      call = prepared;
    } catch (error) {
      if (error instanceof VaultIntegrityError) return errored('the card could not be read from the vault');
      throw error;
    }
    try {
      return this.#outcomeOfAnswer(charge, await this.processors.retrying(call, this.logger, context));
    } catch (error) {
      const rejected = error instanceof ProcessorRequestRejectedError;
      if (!rejected && !isRetryableProcessorError(error)) throw error;
      // The outcome is unknown (timeout, 5xx) or the request was refused (which may follow an
      // execution, e.g. a reused key): only the processor's record tells. Never fail without it.
      // A refusal's text may echo request fields: log its status and type only.
      const reason = rejected ? { httpStatus: error.httpStatus, type: error.type } : error;
      this.logger.warn({ ...context, err: reason }, 'asking the processor for the payment');
      const found = await this.processors.retrying(() => processor.status(charge.id), this.logger, context);
      if (!found.found) {
        // 409/423: the same key is still being executed (e.g. an overlapping retry), its outcome is
        // unknown; any other refusal means the request was refused as such and nothing was executed
        if (rejected && !IN_PROGRESS_STATUSES.includes(error.httpStatus))
          return errored('the processor refused the request');
        throw new RetryLaterError(`charge ${charge.id}: the processor has not executed it yet`);
      }
      const outcome = outcomeOfPayment(found.payment, charge);
      if (outcome) return outcome;
      // Waiting for the customer: a retried request answers with the challenge or payment URL
      // again. A refused one never will, so the charge waits without them until it expires.
      if (!rejected) throw new RetryLaterError(`charge ${charge.id}: retrying for the customer's link`);
      // a bank transfer or konbini keeps the deadline it was accepted with
      if (charge.expiresOn !== null)
        return { status: 'awaiting', processorReference: found.payment.processorReference };
      return this.#awaiting({ processorReference: found.payment.processorReference });
    }
  }

  /** The processor call of a charge, or the reason it cannot be made (an `error` outcome). */
  async #prepare(
    processor: PaymentProcessor,
    charge: PendingCharge,
  ): Promise<string | (() => Promise<ProcessorAnswer>)> {
    // the processor's wire carries amounts as JSON numbers: one past 2^53 - 1 cannot be sent exactly
    if (!isProcessorAmount(charge.amount)) return 'the amount is beyond what the processor accepts';
    const common = {
      reference: charge.id,
      amount: toProcessorAmount(charge.amount),
      currency: charge.currency,
    };
    switch (charge.paymentType) {
      case 'card': {
        if (!charge.vault || !charge.card) return 'the card is missing from the vault';
        const card = new SensitiveCardData({
          cardNumber: this.vault.decrypt(charge.vault, { transactionTokenId: charge.tokenId }),
          cvv: await this.cvvs.peek(charge.tokenId, charge.id),
          expMonth: charge.card.exp_month,
          expYear: charge.card.exp_year,
          cardholder: charge.card.cardholder,
        });
        const request = {
          ...common,
          capture: charge.capture,
          paymentMethod: { type: 'card' as const, card },
          threeDs: {
            // a token authenticated at tokenization: the authentication is provided, not asked again
            mode: (charge.threeDs?.mode ??
              (charge.tokenThreeDsAuthenticated ? 'provided' : 'normal')) as ThreeDsMode,
            redirectEndpoint: charge.threeDs?.redirect_endpoint ?? undefined,
            callbackUrl: this.processors.callbackUrl,
          },
          descriptor: charge.descriptor ?? undefined,
        };
        return () => processor.authorize(request);
      }
      case 'qr_scan': {
        if (!charge.scannedQr) return 'the transaction token has no scanned code';
        const request = {
          ...common,
          capture: charge.capture,
          paymentMethod: { type: 'qr_scan' as const, scannedQr: charge.scannedQr },
          descriptor: charge.descriptor ?? undefined,
        };
        return () => processor.authorize(request);
      }
      case 'online': {
        if (!charge.brand) return 'the transaction token has no brand';
        const request = {
          ...common,
          brand: charge.brand,
          callMethod:
            charge.callMethod && CALL_METHODS.includes(charge.callMethod)
              ? (charge.callMethod as OperatorCallMethod)
              : undefined,
          callbackUrl: this.processors.callbackUrl,
          returnUrl: charge.redirectEndpoint ?? undefined,
        };
        return () => processor.createOperatorPayment(request);
      }
      case 'bank_transfer':
      case 'konbini': {
        if (!charge.expiresOn) return 'the charge has no payment deadline';
        let method: DeferredPaymentMethod;
        if (charge.paymentType === 'konbini') {
          if (!charge.konbini) return 'the transaction token has no convenience store';
          method = { type: 'konbini', ...charge.konbini };
        } else {
          if (!charge.brand) return 'the transaction token has no brand';
          method = { type: 'bank_transfer', brand: charge.brand };
        }
        const request = {
          ...common,
          method,
          expiresOn: charge.expiresOn,
          callbackUrl: this.processors.callbackUrl,
        };
        return () => processor.createDeferredPayment(request);
      }
      case 'apple_pay':
      case 'paidy':
      case 'qr_merchant':
        return `payment type ${charge.paymentType} is not supported`;
    }
  }

  #outcomeOfAnswer(charge: PendingCharge, answer: ProcessorAnswer): ChargeOutcome {
    if ('instructions' in answer) {
      // the deadline is the one the charge was accepted with (and extensions move): kept as it is
      return {
        status: 'awaiting',
        processorReference: answer.processorReference,
        issuerToken: deferredIssuerToken(answer, charge),
      };
    }
    if (!('outcome' in answer)) {
      return this.#awaiting({
        processorReference: answer.processorReference,
        issuerToken: {
          issuer_token: answer.paymentUrl,
          call_method: answer.callMethod,
          payload: {},
          payment_type: 'online',
        },
      });
    }
    const processorReference = answer.processorReference;
    switch (answer.outcome) {
      case 'approved':
        return answer.captured
          ? successful(processorReference, charge.amount, charge.feeTerms)
          : { status: 'authorized', processorReference, captureStatus: 'authorized' };
      case 'declined':
        return { status: 'failed', processorReference, error: answer.error };
      case 'three_ds_required':
        return this.#awaiting({
          processorReference,
          threeDsIssuerToken: {
            issuer_token: answer.threeDs.issuerToken,
            call_method: answer.threeDs.callMethod,
            payload: answer.threeDs.payload,
            payment_type: 'card',
            content_type: answer.threeDs.contentType,
          },
        });
    }
  }

  #awaiting(outcome: Omit<ChargeOutcome, 'status' | 'expiresOn'>): ChargeOutcome {
    return { ...outcome, status: 'awaiting', expiresOn: new Date(Date.now() + this.#awaitingExpiryMs) };
  }

  /**
   * A bank-transfer or konbini payment still open at the processor: its deposits are recorded (each
   * once, with bank_transfer_status_updated), and when their total matches the charge's
   * match_amount rule the charge is paid: successful, charged the total received. Null otherwise.
   */
  async #deferredOutcome(
    payment: ProcessorPayment,
    charge: ChargeToReconcile,
    causeEventId: string | null,
  ): Promise<ChargeOutcome | null> {
    if (!isDeferredKind(payment.kind) || payment.status !== 'awaiting_payment') return null;
    const rule = charge.matchAmount ?? 'exact';
    let received = 0n;
    let paidWith: bigint | null = null;
    const deposits = payment.deposits.map((deposit) => {
      received += fromProcessorAmount(deposit.amount);
      const matched = amountMatches(rule, charge.amount, received);
      if (matched && paidWith === null) paidWith = received;
      return {
        processorDepositId: deposit.id,
        amount: fromProcessorAmount(deposit.amount),
        receivedOn: deposit.receivedOn,
        matched,
      };
    });
    // the charge is pending or awaiting here (what reconciliation reads): money arriving after it
    // ended is not recorded (the processor no longer takes any once the payment is voided)
    await this.deferredPayments.recordDeposits(charge.id, deposits, causeEventId);
    return paidWith === null ? null : successful(payment.processorReference, paidWith, charge.feeTerms);
  }

  /**
   * Money for a bank-transfer or konbini charge that has already ended (an overpayment after it was
   * paid, a transfer that came between the last look and the expiry's void): every deposit the
   * processor reports and Kessai has not recorded is recorded, unmatched and `received_after_end`,
   * with bank_transfer_status_updated for a bank transfer; the charge is not changed. Nothing for
   * any other charge.
   */
  async #recordMoneyAfterEnd(chargeId: string, causeEventId: string | null): Promise<void> {
    const charge = await this.deferredPayments.findEnded(chargeId);
    const processor = charge && this.processors.forMode(charge.mode);
    if (!charge || !processor) return;
    const context = { chargeId, operation: 'money after end' };
    const found = await this.processors.retrying(() => processor.status(chargeId), this.logger, context);
    if (!found.found || !isDeferredKind(found.payment.kind)) return;
    const recorded = await this.deferredPayments.recordDeposits(
      chargeId,
      found.payment.deposits.map((deposit) => ({
        processorDepositId: deposit.id,
        amount: fromProcessorAmount(deposit.amount),
        receivedOn: deposit.receivedOn,
        matched: false,
        receivedAfterEnd: true,
      })),
      causeEventId,
    );
    if (recorded > 0)
      this.logger.warn(
        { chargeId, status: charge.status, deposits: recorded },
        'money after the charge ended',
      );
  }

  /**
   * A bank-transfer or konbini charge unpaid at its deadline, in a store with
   * `automatic_extension_enabled`: extended by `default_extension_period` under the rules a
   * merchant's extension is held to (extendedDeadline: at most MAXIMUM_EXPIRY_EXTENSIONS, within
   * `maximum_extension_period`, ending after now), read from the store's configuration now. True
   * when the charge is not to be expired by this pass: extended here, or moved meanwhile by someone
   * else (another replica's sweep extended it, money or a cancel ended it); false when the rules
   * say it ends.
   */
  async #extendAtDeadline(charge: ChargeToReconcile, causeEventId: string | null): Promise<boolean> {
    const read = await this.deferredPayments.findExpiryWithConfiguration(charge.id);
    if (!read) return false;
    const rules = effectiveConfiguration(
      read.merchantConfiguration,
      read.storeConfiguration,
    ).bank_transfer_configuration;
    if (!rules.automatic_extension_enabled) return false;
    const decided = extendedDeadline(
      rules,
      { deadline: read.expirationDate, extensionCount: read.extensionCount },
      {},
      new Date(),
    );
    if ('refused' in decided) {
      this.logger.info({ chargeId: charge.id, refused: decided.refused }, 'no automatic extension');
      return false;
    }
    const extensionCount = await this.deferredPayments.extendAtDeadline(
      charge.id,
      read.expirationDate,
      decided.deadline,
      causeEventId,
    );
    this.logger.info(
      { chargeId: charge.id, expiresOn: decided.deadline, extensionCount, extended: extensionCount !== null },
      'automatic extension',
    );
    return true;
  }

  /** An awaiting charge past its time: void what the customer did not complete, then fail it. */
  async #expire(
    processor: PaymentProcessor,
    charge: ChargeToReconcile,
    payment: ProcessorPayment,
  ): Promise<ChargeOutcome | null> {
    const context = { chargeId: charge.id, operation: 'expiry void' };
    const voided = await this.processors.retrying(
      () =>
        processor.void({
          processorReference: payment.processorReference,
          idempotencyKey: `expiry-${charge.id}`,
        }),
      this.logger,
      context,
    );
    if (voided.outcome === 'voided') return failed(expiryError(charge));
    // completed meanwhile (paid, authenticated): what the processor now holds is the outcome
    const found = await this.processors.retrying(() => processor.status(charge.id), this.logger, context);
    if (found.found) return outcomeOfPayment(found.payment, charge);
    return null;
  }
}

/** What the processor answers a charge's first call with. */
type ProcessorAnswer = AuthorizeResult | OperatorPaymentResult | DeferredPaymentResult;

function isDeferredKind(kind: ProcessorPayment['kind']): boolean {
  return isDeferredPaymentType(kind);
}

/**
 * GET .../issuer_token of a bank-transfer or konbini charge: the page the customer pays from (the
 * bank's transfer page, the konbini slip) and, as `payload`, the instructions themselves.
 */
function deferredIssuerToken(answer: DeferredPaymentResult, charge: PendingCharge): Record<string, unknown> {
  const common = {
    amount: charge.amount.toString(),
    currency: charge.currency,
    expiration_date: charge.expiresOn?.toISOString() ?? '',
  };
  const instructions = answer.instructions;
  switch (instructions.type) {
    case 'bank_transfer':
      return {
        issuer_token: instructions.paymentUrl,
        call_method: 'http_get',
        payload: {
          bank_code: instructions.bankCode,
          bank_name: instructions.bankName,
          branch_code: instructions.branchCode,
          branch_name: instructions.branchName,
          account_id: instructions.accountId,
          account_number: instructions.accountNumber,
          account_holder_name: instructions.accountHolderName,
          ...common,
        },
        payment_type: 'bank_transfer',
      };
    case 'konbini':
      return {
        issuer_token: instructions.paymentUrl,
        call_method: 'http_get',
        payload: {
          convenience_store: instructions.convenienceStore,
          payment_code: instructions.paymentCode,
          receipt_number: instructions.receiptNumber,
          ...common,
        },
        payment_type: 'konbini',
      };
  }
}

/** The charge outcome the processor's record of a payment means; null while the customer has not acted. */
function outcomeOfPayment(
  payment: ProcessorPayment,
  charge: Pick<ChargeToReconcile, 'paymentType' | 'feeTerms'>,
): ChargeOutcome | null {
  const processorReference = payment.processorReference;
  switch (payment.status) {
    case 'captured':
      return successful(processorReference, fromProcessorAmount(payment.capturedAmount), charge.feeTerms);
    case 'authorized':
      return { status: 'authorized', processorReference, captureStatus: 'authorized' };
    case 'declined':
      return { status: 'failed', processorReference, error: payment.error ?? paymentError('CARD_REJECTED') };
    case 'expired':
      return {
        status: 'failed',
        processorReference,
        error: payment.error ?? paymentError('CONFIRMATION_PERIOD_EXPIRED'),
      };
    case 'voided':
      return { status: 'failed', processorReference, error: expiryError(charge) };
    case 'pending_authentication':
    case 'awaiting_payment':
      return null;
  }
}

/** Online/QR: 327 CONFIRMATION_PERIOD_EXPIRED; a card (3-D Secure): 358 THREE_DS_COULD_NOT_BE_COMPLETED. */
function expiryError(charge: Pick<ChargeToReconcile, 'paymentType'>): PaymentErrorDetails {
  return charge.paymentType === 'card'
    ? paymentError(
        'THREE_DS_COULD_NOT_BE_COMPLETED',
        'the cardholder did not complete authentication in time',
      )
    : paymentError('CONFIRMATION_PERIOD_EXPIRED', 'the customer did not pay in time');
}

/** Money taken: `chargedAmount` and its fee under the charge's terms (docs/charges.md, "Fees"). */
function successful(
  processorReference: string,
  chargedAmount: bigint,
  terms: FeeTerms | null,
): ChargeOutcome {
  return {
    status: 'successful',
    processorReference,
    chargedAmount,
    feeAmount: feeOf(chargedAmount, terms) ?? undefined,
  };
}

/** The fee of what was charged; null for a charge accepted before fees existed (it has no terms). */
function feeOf(chargedAmount: bigint, terms: FeeTerms | null): bigint | null {
  return terms === null ? null : chargeFee(chargedAmount, terms);
}

function failed(error: PaymentErrorDetails): ChargeOutcome {
  return { status: 'failed', error };
}

/** The charge cannot be processed at all: status `error`, 309 with the reason. */
function errored(detail: string): ChargeOutcome {
  return { status: 'error', error: paymentError('PROCESSING_ERROR', detail) };
}
