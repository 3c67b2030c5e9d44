import { Inject, Injectable } from '@nestjs/common';
import {
  ChargeOutcomesRepository,
  DeferredPaymentsRepository,
  type ChargeOutcome,
  type ChargeToReconcile,
} from '@kessai/db';
import { amountMatches, chargeTransition } from '@kessai/domain';
import { LOGGER, type Logger } from '@kessai/observability';
import {
  fromProcessorAmount,
  PaymentProcessors,
  type PaymentProcessor,
  type ProcessorPayment,
} from '@kessai/processor';
import { effectiveConfiguration, extendedDeadline } from '@kessai/store-configuration';
import { PendingCvvStore } from '@kessai/vault';
import { ChargeMetrics } from './charge-metrics';
import { expiryError, failed, isDeferredKind, outcomeOfPayment, successful } from './charge-outcomes';

/**
 * reconcile_charge: an awaiting (or pending) charge looked up at the processor and moved on when
 * the processor knows its fate; a bank transfer's or konbini's deposits recorded, its deadline
 * extended automatically where the store says so; a charge past its time voided and failed; money
 * for a charge that already ended recorded beside it (docs/charges.md, "charge-service";
 * docs/bank-transfer-and-konbini.md). Every method reloads the row and does nothing when the work no longer applies, and records through one
 * conditional statement, so a job that runs twice, concurrently or after a crash, changes nothing
 * the second time.
 */
@Injectable()
export class ChargeReconciliationService {
  constructor(
    private readonly charges: ChargeOutcomesRepository,
    private readonly deferredPayments: DeferredPaymentsRepository,
    private readonly processors: PaymentProcessors,
    private readonly cvvs: PendingCvvStore,
    private readonly metrics: ChargeMetrics,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

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
    const processor = await this.processors.forCharge(charge.id, charge.mode, charge.processorAccountId);
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
    const processor = charge && (await this.processors.forCharge(chargeId, charge.mode));
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
