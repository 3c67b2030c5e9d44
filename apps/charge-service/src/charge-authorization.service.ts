import { Inject, Injectable } from '@nestjs/common';
import { SensitiveCardData } from '@kessai/cards';
import { APP_CONFIG, type AppConfig } from '@kessai/config';
import { CHARGE_REQUESTED, CHARGES_QUEUE } from '@kessai/contracts';
import {
  ChargeOutcomesRepository,
  type ChargeOutcome,
  type PendingCharge,
  type RecordedOutcome,
} from '@kessai/db';
import { chargeTransition, type ChargeStatus } from '@kessai/domain';
import { LOGGER, withCorrelation, type Logger } from '@kessai/observability';
import { Coalescer } from '@kessai/runtime';
import {
  applePayPaymentDataWireSchema,
  paidyShippingAddressWireSchema,
  isRetryableProcessorError,
  type OperatorCallMethod,
  type DeferredPaymentMethod,
  PaymentProcessors,
  type PaymentProcessor,
  ProcessorRequestRejectedError,
  type ThreeDsMode,
  isProcessorAmount,
  toProcessorAmount,
} from '@kessai/processor';
import { CardVault, PendingCvvStore, VaultIntegrityError } from '@kessai/vault';
import { ChargeJobs } from './charge-jobs';
import { ChargeMetrics } from './charge-metrics';
import {
  deferredIssuerToken,
  virtualBankAccountOf,
  errored,
  outcomeOfPayment,
  successful,
  type ProcessorAnswer,
} from './charge-outcomes';
import { ChargeProcessorCalls } from './processor-failover';
import { RetryLaterError } from './retry-later';

/** A charge to process and the outbox event that asked for it. */
export interface ChargeRequest {
  chargeId: string;
  causeEventId: string | null;
  /** the request the charge comes from: its log lines carry it */
  correlationId?: string | null;
}

/** HTTP statuses of a refusal that means "this key is being executed right now", not "refused". */
const IN_PROGRESS_STATUSES: readonly number[] = [409, 423];

const CALL_METHODS: readonly string[] = ['http_get', 'http_get_mobile', 'http_post', 'sdk', 'web', 'app'];

/** the status process_charge reads charges in (findPending), which their outcomes move them from */
const PENDING: ChargeStatus = 'pending';

/**
 * process_charge and process_charges: a pending charge authorized at the processor (or its operator
 * or deferred payment opened) and its outcome recorded (docs/charges.md, "charge-service"). Every method reloads the row and does nothing when the work no longer applies, and records through one
 * conditional statement, so a job that runs twice, concurrently or after a crash, changes nothing
 * the second time.
 * The processor is keyed by the charge id and executes each key once, so a repeat never charges
 * twice.
 */
@Injectable()
export class ChargeAuthorizationService {
  readonly #awaitingExpiryMs: number;
  /** outcomes of pending charges recorded concurrently share statements (one round trip, one commit) */
  readonly #pendingOutcomes: Coalescer<RecordedOutcome, boolean>;

  constructor(
    private readonly charges: ChargeOutcomesRepository,
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

  /** The outcome of a pending charge, from the processor's answer only; throws while it is unknown. */
  async #authorize(charge: PendingCharge): Promise<ChargeOutcome> {
    const processor = await this.processors.forCharge(charge.id, charge.mode, charge.processorAccountId);
    if (!processor) return errored('no live processor is configured');
    const context = { chargeId: charge.id, paymentType: charge.paymentType };
    let call: (processor: PaymentProcessor) => Promise<ProcessorAnswer>;
    try {
      const prepared = await this.#prepare(charge);
      if (typeof prepared === 'string') return errored(prepared);
      call = prepared;
    } catch (error) {
      if (error instanceof VaultIntegrityError) return errored('the card could not be read from the vault');
      throw error;
    }
    // a route's fallback (decision 0056): its adapter, when the charge may still fail over to it
    const fallback =
      charge.fallbackProcessorAccountId === null
        ? null
        : await this.processors.forAccount(charge.fallbackProcessorAccountId);
    const calls = new ChargeProcessorCalls(charge.id, processor, fallback, this.charges, this.logger);
    try {
      const answer = await this.processors.retrying(() => calls.send(call), this.logger, context);
      return this.#outcomeOfAnswer(charge, answer);
    } catch (error) {
      const rejected = error instanceof ProcessorRequestRejectedError;
      if (!rejected && !isRetryableProcessorError(error)) throw error;
      // The outcome is unknown (timeout, 5xx) or the request was refused (which may follow an
      // execution, e.g. a reused key): only the processor's record tells. Never fail without it.
      // A refusal's text may echo request fields: log its status and type only.
      const reason = rejected ? { httpStatus: error.httpStatus, type: error.type } : error;
      this.logger.warn({ ...context, err: reason }, 'asking the processor for the payment');
      // the processor the charge's calls went to last: its fallback once it failed over
      const found = await this.processors.retrying(
        () => calls.current.status(charge.id),
        this.logger,
        context,
      );
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

  /**
   * The processor call of a charge, to be sent to whichever processor takes it, or the reason it
   * cannot be made (an `error` outcome).
   */
  async #prepare(
    charge: PendingCharge,
  ): Promise<string | ((processor: PaymentProcessor) => Promise<ProcessorAnswer>)> {
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
            returnUrl: this.processors.threeDsReturnUrl(charge.id),
          },
          descriptor: charge.descriptor ?? undefined,
        };
        return (processor) => processor.authorize(request);
      }
      case 'qr_scan': {
        if (!charge.scannedQr) return 'the transaction token has no scanned code';
        const request = {
          ...common,
          capture: charge.capture,
          paymentMethod: { type: 'qr_scan' as const, scannedQr: charge.scannedQr },
          descriptor: charge.descriptor ?? undefined,
        };
        return (processor) => processor.authorize(request);
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
        return (processor) => processor.createOperatorPayment(request);
      }
      // a code the merchant shows: the operator's payment, whose QR content the consumer's wallet scans
      case 'qr_merchant': {
        if (!charge.brand) return 'the transaction token has no brand';
        const request = { ...common, brand: charge.brand, callbackUrl: this.processors.callbackUrl };
        return (processor) => processor.createOperatorPayment(request);
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
          customerEmail: charge.email,
        };
        return (processor) => processor.createDeferredPayment(request);
      }
      // the device's encrypted payment data, for the processor to open and authorize as a card
      case 'apple_pay': {
        const paymentData = applePayPaymentDataWireSchema.safeParse(charge.applePayPaymentData);
        if (!paymentData.success) return 'the transaction token has no Apple Pay payment data';
        const request = {
          ...common,
          capture: charge.capture,
          paymentMethod: { type: 'apple_pay' as const, paymentData: paymentData.data },
          descriptor: charge.descriptor ?? undefined,
        };
        return (processor) => processor.authorize(request);
      }
      // the consumer's Paidy token: Paidy authorizes the payment (captured now or later)
      case 'paidy': {
        const shipping = paidyShippingAddressWireSchema.safeParse(charge.paidy?.shippingAddress);
        if (!charge.paidy || !shipping.success) return 'the transaction token has no Paidy token';
        const request = {
          ...common,
          capture: charge.capture,
          paymentMethod: {
            type: 'paidy' as const,
            tokenId: charge.paidy.token,
            shippingAddress: shipping.data,
            buyerEmail: charge.email,
          },
        };
        return (processor) => processor.authorize(request);
      }
    }
  }

  #outcomeOfAnswer(charge: PendingCharge, answer: ProcessorAnswer): ChargeOutcome {
    if ('instructions' in answer) {
      // the deadline is the one the charge was accepted with (and extensions move): kept as it is
      const virtualBankAccount = virtualBankAccountOf(answer);
      return {
        status: 'awaiting',
        processorReference: answer.processorReference,
        issuerToken: deferredIssuerToken(answer, charge),
        ...(virtualBankAccount ? { virtualBankAccount } : {}),
      };
    }
    if (!('outcome' in answer)) {
      return this.#awaiting({
        processorReference: answer.processorReference,
        // a merchant-presented QR's issuer token is what its code encodes, to be shown as a QR
        issuerToken:
          charge.paymentType === 'qr_merchant'
            ? {
                issuer_token: answer.qrContent,
                call_method: 'http_get',
                payload: {},
                payment_type: 'qr_merchant',
              }
            : {
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
}
