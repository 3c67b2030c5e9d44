import { Injectable } from '@nestjs/common';
import { z } from 'zod';
import { DeferredPaymentsRepository, StoresRepository, type AccessScope } from '@kessai/db';
import { BusinessRuleError, ConflictError, NotFoundError, ValidationError } from '@kessai/domain';
import { presentBankTransferLedgers, presentChargeExpiry } from '@kessai/presenters';
import { effectiveConfiguration, extendedDeadline, isExpirationPeriod } from '@kessai/store-configuration';
import type { Principal } from '../auth/principal';
import { parseInput } from '../http/validation';
import { extendExpirySchema } from './charge.schemas';

const uuid = z.string().uuid();
/** Extensions that lost a race to another one read again; past this many, the caller is told. */
const EXTENSION_TRIES = 3;

/**
 * The payment deadline of bank-transfer and konbini charges (docs/bank-transfer-and-konbini.md,
 * "Expiry"): read it (the SDK's charges.expiry) and extend it within the store's limits; and a bank
 * transfer's ledger of the money asked for and received.
 */
@Injectable()
export class ChargeExpiryService {
  constructor(
    private readonly deferredPayments: DeferredPaymentsRepository,
    private readonly stores: StoresRepository,
  ) {}

  /** GET …/expiry/latest: 404 for a charge without a deadline (card, online, QR) as for an unknown one. */
  async latest(principal: Principal, storeId: string, chargeId: string) {
    const found = await this.#find(scopeOf(principal, storeId), chargeId);
    return presentChargeExpiry(found.expiry);
  }

  /**
   * POST …/expiry: moves the deadline of a pending or awaiting charge (the limits: extendedDeadline).
   * One conditional statement; an extension that another one overtook reads again and is judged anew.
   */
  async extend(principal: Principal, storeId: string, chargeId: string, body: unknown) {
    const request = parseInput(extendExpirySchema, body);
    if (request.expiration_period !== undefined && !isExpirationPeriod(request.expiration_period))
      throw ValidationError.field('expiration_period', 'INVALID_TIME_PERIOD');
    const scope = scopeOf(principal, storeId);
    const store = await this.stores.findVisibleWithMerchant(principal, storeId);
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
        return presentChargeExpiry((await this.#find(scope, chargeId)).expiry);
      }
    }
    throw new ConflictError('CONFLICTED');
  }

  /**
   * GET …/bank_transfer_ledgers: a bank-transfer charge's virtual-account ledger; 404 for any other
   * charge (konbini has no account), another merchant's, or an unknown one.
   */
  async ledgers(principal: Principal, storeId: string, chargeId: string) {
    const scope = scopeOf(principal, storeId);
    const found = uuid.safeParse(chargeId).success
      ? await this.deferredPayments.findLedger(scope, chargeId)
      : null;
    if (!found) throw new NotFoundError('charge');
    return presentBankTransferLedgers(found);
  }

  async #find(scope: AccessScope, chargeId: string) {
    const found = uuid.safeParse(chargeId).success
      ? await this.deferredPayments.findExpiry(scope, chargeId)
      : null;
    if (!found) throw new NotFoundError('charge');
    return found;
  }
}

function scopeOf(principal: Principal, storeId: string): AccessScope {
  if (!uuid.safeParse(storeId).success) throw new NotFoundError('charge');
  if (principal.storeId !== null && principal.storeId !== storeId) throw new NotFoundError('charge');
  return { merchantId: principal.merchantId, storeId };
}
