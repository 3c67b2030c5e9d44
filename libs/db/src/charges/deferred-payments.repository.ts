import { Injectable } from '@nestjs/common';
import type { ChargeStatus } from '@kessai/domain';
import type { ChargeDeposit, ChargeExpiry, UnassignedDeposit } from '../generated/prisma/client';
import type { ProcessingMode } from '../generated/prisma/enums';
import { PrismaService } from '../prisma.service';
import {
  AUTO_EXTEND_CHARGE_EXPIRY,
  EXTEND_CHARGE_EXPIRY,
  FIND_ENDED_DEFERRED_CHARGE,
  FIND_EXPIRY_WITH_CONFIGURATION,
  RECORD_CHARGE_DEPOSITS,
  RECORD_UNASSIGNED_DEPOSIT,
} from './deferred-payments.sql';
import { scopeWhere, type AccessScope } from '../scope';

/** Money the processor reports received for a bank-transfer or konbini charge. */
export interface NewChargeDeposit {
  processorDepositId: string;
  /** minor units */
  amount: bigint;
  receivedOn: Date;
  /** the charge's received total matched its match_amount rule once this deposit arrived */
  matched: boolean;
  /** the charge had ended when the money was recorded (it changes nothing); false when absent */
  receivedAfterEnd?: boolean;
}

/** Money the processor reports for a payment that is no charge of ours. */
export interface NewUnassignedDeposit {
  processorDepositId: string;
  processorReference: string;
  reference: string;
  /** minor units */
  amount: bigint;
  currency: string;
  receivedOn: Date;
}

/** What GET …/bank_transfer_ledgers reads: a bank-transfer charge and the money received for it. */
export interface BankTransferLedgerSource {
  charge: {
    id: string;
    mode: ProcessingMode;
    requestedAmount: bigint;
    requestedCurrency: string;
    createdOn: Date;
    /** the consumer's instructions (GET …/issuer_token): the virtual account is in `payload` */
    issuerToken: unknown;
  };
  /** oldest first */
  deposits: ChargeDeposit[];
}

/** A deposit that came after its charge ended, with what the operator needs to return it. */
export interface DepositAfterEnd {
  deposit: ChargeDeposit;
  charge: { id: string; merchantId: string; storeId: string; status: string };
}

/** A charge's deadline as an automatic extension reads it, with the configuration layers of its store. */
export interface ExpiryWithConfiguration {
  expirationDate: Date;
  extensionCount: number;
  merchantConfiguration: unknown;
  storeConfiguration: unknown;
}

/** A charge's payment deadline, with what an extension needs of its charge. */
export interface ChargeExpiryOfCharge {
  expiry: ChargeExpiry;
  chargeStatus: string;
}

/**
 * Bank-transfer and konbini charges (docs/bank-transfer-and-konbini.md): their deposits and their
 * payment deadline. The decisions (matching, the extension's limits) are the caller's.
 */
@Injectable()
export class DeferredPaymentsRepository {
  constructor(private readonly prisma: PrismaService) {}

  /** Records the deposits not recorded yet (and their events); answers how many were new. */
  async recordDeposits(
    chargeId: string,
    deposits: readonly NewChargeDeposit[],
    causeEventId: string | null,
  ): Promise<number> {
    if (deposits.length === 0) return 0;
    const rows = await this.prisma.run(RECORD_CHARGE_DEPOSITS, {
      chargeId,
      deposits: deposits.map((deposit) => ({
        processor_deposit_id: deposit.processorDepositId,
        amount: deposit.amount.toString(),
        received_on: deposit.receivedOn.toISOString(),
        matched: deposit.matched,
        received_after_end: deposit.receivedAfterEnd ?? false,
      })),
      causeEventId,
    });
    return rows.length;
  }

  /** The charge's payment deadline if the scope may see the charge; null otherwise or when it has none. */
  async findExpiry(scope: AccessScope, chargeId: string): Promise<ChargeExpiryOfCharge | null> {
    const expiry = await this.prisma.chargeExpiry.findFirst({
      where: {
        chargeId,
        charge: scopeWhere(scope),
      },
      include: { charge: { select: { status: true } } },
    });
    if (!expiry) return null;
    const { charge, ...row } = expiry;
    return { expiry: row, chargeStatus: charge.status };
  }

  /** A deposit of a charge the scope may see, with the charge's status; null otherwise. */
  async findDeposit(
    scope: AccessScope,
    chargeId: string,
    depositId: string,
  ): Promise<{
    deposit: ChargeDeposit;
    charge: { storeId: string; status: string; requestedAmount: bigint };
  } | null> {
    const row = await this.prisma.chargeDeposit.findFirst({
      where: {
        id: depositId,
        chargeId,
        charge: scopeWhere(scope),
      },
      include: { charge: { select: { storeId: true, status: true, requestedAmount: true } } },
    });
    if (!row) return null;
    const { charge, ...deposit } = row;
    return { deposit, charge };
  }

  /**
   * Moves the deadline from the one read (`read`) to `expirationDate`; false when the charge is no
   * longer open, its deadline passed, or another extension came first (EXTEND_CHARGE_EXPIRY).
   */
  async extend(read: ChargeExpiry, expirationDate: Date): Promise<boolean> {
    const rows = await this.prisma.run(EXTEND_CHARGE_EXPIRY, {
      chargeId: read.chargeId,
      readExpirationDate: read.expirationDate,
      expirationDate,
    });
    return rows.length > 0;
  }

  /** The deadline of a charge and its store's configuration layers; null for a charge without one. */
  async findExpiryWithConfiguration(chargeId: string): Promise<ExpiryWithConfiguration | null> {
    const [row] = await this.prisma.run(FIND_EXPIRY_WITH_CONFIGURATION, { chargeId });
    if (!row) return null;
    return {
      expirationDate: row.expiration_date,
      extensionCount: row.extension_count,
      merchantConfiguration: row.merchant_configuration,
      storeConfiguration: row.store_configuration,
    };
  }

  /**
   * The automatic extension of an awaiting charge whose deadline (`readExpirationDate`) has passed,
   * to `expirationDate`, with charge_updated; the new extension count, or null when another replica
   * (or anything else) moved the charge first (AUTO_EXTEND_CHARGE_EXPIRY).
   */
  async extendAtDeadline(
    chargeId: string,
    readExpirationDate: Date,
    expirationDate: Date,
    causeEventId: string | null,
  ): Promise<number | null> {
    const [row] = await this.prisma.run(AUTO_EXTEND_CHARGE_EXPIRY, {
      chargeId,
      readExpirationDate,
      expirationDate,
      causeEventId,
    });
    return row ? row.extension_count : null;
  }

  /** A bank-transfer charge the scope may see, with its deposits; null for any other charge. */
  async findLedger(scope: AccessScope, chargeId: string): Promise<BankTransferLedgerSource | null> {
    const row = await this.prisma.charge.findFirst({
      where: {
        id: chargeId,
        ...scopeWhere(scope),
        transactionToken: { paymentType: 'bank_transfer' },
      },
      select: {
        id: true,
        mode: true,
        requestedAmount: true,
        requestedCurrency: true,
        createdOn: true,
        issuerToken: true,
        deposits: { orderBy: [{ receivedOn: 'asc' }, { createdOn: 'asc' }] },
      },
    });
    if (!row) return null;
    const { deposits, ...charge } = row;
    return { charge, deposits };
  }

  /** A bank-transfer or konbini charge that has ended; null for any other charge, or one still open. */
  async findEnded(
    chargeId: string,
  ): Promise<{ id: string; mode: ProcessingMode; status: ChargeStatus } | null> {
    const [row] = await this.prisma.run(FIND_ENDED_DEFERRED_CHARGE, { chargeId });
    return row ?? null;
  }

  /** Records money for no charge of ours, once per processor deposit; true when it was new. */
  async recordUnassigned(deposit: NewUnassignedDeposit): Promise<boolean> {
    const rows = await this.prisma.run(RECORD_UNASSIGNED_DEPOSIT, deposit);
    return rows.length > 0;
  }

  /**
   * The operator's list of stray money (admin CLI deposits:stray): deposits for no charge, and
   * deposits that came after their charge ended (of one merchant's charges, when given), newest
   * first, at most `limit` of each.
   */
  async findStray(
    limit: number,
    merchantId?: string,
  ): Promise<{ unassigned: UnassignedDeposit[]; afterEnd: DepositAfterEnd[] }> {
    const [unassigned, afterEnd] = await Promise.all([
      merchantId
        ? Promise.resolve([])
        : this.prisma.unassignedDeposit.findMany({ orderBy: { createdOn: 'desc' }, take: limit }),
      this.prisma.chargeDeposit.findMany({
        where: { receivedAfterEnd: true, ...(merchantId ? { charge: { merchantId } } : {}) },
        include: { charge: { select: { id: true, merchantId: true, storeId: true, status: true } } },
        orderBy: { createdOn: 'desc' },
        take: limit,
      }),
    ]);
    return {
      unassigned,
      afterEnd: afterEnd.map(({ charge, ...deposit }) => ({ deposit, charge })),
    };
  }
}
