import { Injectable } from '@nestjs/common';
import {
  DeferredPaymentsRepository,
  StoresRepository,
  type AccessScope,
  type BankTransferLedgerSource,
  type ChargeExpiry,
} from '@kessai/db';
import { BusinessRuleError, ConflictError, isUuid, NotFoundError, ValidationError } from '@kessai/domain';
import { effectiveConfiguration, extendedDeadline, isExpirationPeriod } from '@kessai/store-configuration';
import type { ChargeScope } from '../actor';
import type { ExpiryExtensionInput } from './charge-inputs';

/** Extensions that lost a race to another one read again; past this many, the caller is told. */
const EXTENSION_TRIES = 3;

/**
 * An extension's own form: a period (ISO 8601) no longer than a payment period may be, else 400
 * INVALID_TIME_PERIOD on `expiration_period`. Checked by `extend` first; a front end may check it
 * earlier (the gateway does, before the path's scope, as it always answered).
 */
export function checkExpiryExtension(request: ExpiryExtensionInput): void {
  if (request.expiration_period !== undefined && !isExpirationPeriod(request.expiration_period))
    throw ValidationError.field('expiration_period', 'INVALID_TIME_PERIOD');
}

/**
 * The payment deadline of bank-transfer and konbini charges (docs/bank-transfer-and-konbini.md,
 * "Expiry"), for the gateway and any other front end: read it (the SDK's charges.expiry), extend it
 * within the store's limits; and a bank transfer's ledger of the money asked for and received. A
 * charge without a deadline (card, online, QR), another store's or an unknown one is 404 `charge`.
 */
@Injectable()
export class ChargeExpiryService {
  constructor(
    private readonly deferredPayments: DeferredPaymentsRepository,
    private readonly stores: StoresRepository,
  ) {}

  /** The charge's deadline as it is. */
  async latest(scope: ChargeScope, chargeId: string): Promise<ChargeExpiry> {
    return (await this.#find(scope, chargeId)).expiry;
  }

  /**
   * Moves the deadline of a pending or awaiting charge (the limits: extendedDeadline) and answers
   * the new one. One conditional statement; an extension that another one overtook reads again and
   * is judged anew.
   */
  async extend(scope: ChargeScope, chargeId: string, request: ExpiryExtensionInput): Promise<ChargeExpiry> {
    checkExpiryExtension(request);
    const store = await this.stores.findVisibleWithMerchant(scope, scope.storeId);
    if (!store) throw new NotFoundError('charge');
    const rules = effectiveConfiguration(
      store.merchant.configuration,
      store.configuration,
    ).bank_transfer_configuration;
    for (let attempt = 0; attempt < EXTENSION_TRIES; attempt += 1) {
      const { expiry, chargeStatus } = await this.#find(scope, chargeId);
      const now = new Date();
      if ((chargeStatus !== 'pending' && chargeStatus !== 'awaiting') || expiry.expirationDate <= now)
        throw new BusinessRuleError('INVALID_CHARGE_STATUS', [
          { field: 'status', reason: 'CHARGE_NOT_OPEN' },
        ]);
      const decided = extendedDeadline(
        rules,
        { deadline: expiry.expirationDate, extensionCount: expiry.extensionCount },
        {
          period: request.expiration_period,
          timeShift: request.expiration_time_shift,
          date: request.expiration_date,
        },
        now,
      );
      if ('refused' in decided) {
        const field =
          decided.refused === 'MAXIMUM_EXTENSIONS_REACHED' ? 'extension_count' : 'expiration_date';
        throw new BusinessRuleError(decided.refused, [{ field, reason: decided.refused }]);
      }
      if (await this.deferredPayments.extend(expiry, decided.deadline)) {
        return (await this.#find(scope, chargeId)).expiry;
      }
    }
    throw new ConflictError('CONFLICTED');
  }

  /** A bank-transfer charge's virtual-account ledger; 404 for any other charge (konbini has no account). */
  async ledgers(scope: ChargeScope, chargeId: string): Promise<BankTransferLedgerSource> {
    const found = isUuid(chargeId) ? await this.deferredPayments.findLedger(scope, chargeId) : null;
    if (!found) throw new NotFoundError('charge');
    return found;
  }

  async #find(scope: AccessScope, chargeId: string) {
    const found = isUuid(chargeId) ? await this.deferredPayments.findExpiry(scope, chargeId) : null;
    if (!found) throw new NotFoundError('charge');
    return found;
  }
}
