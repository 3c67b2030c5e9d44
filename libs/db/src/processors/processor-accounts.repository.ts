import { Injectable } from '@nestjs/common';
import type {
  ProcessingMode,
  ProcessorAccount,
  ProcessorAccountStatus,
  ProcessorRoute,
  ProcessorRoutePaymentType,
} from '../generated/prisma/client';
import { PrismaService } from '../prisma.service';

export type {
  ProcessorAccount,
  ProcessorAccountStatus,
  ProcessorProvider,
  ProcessorRoute,
  ProcessorRoutePaymentType,
} from '../generated/prisma/client';

/** What a route is chosen by: one store's charges of a mode, payment type and currency (or `*`). */
export interface ProcessorRouteKey {
  storeId: string;
  mode: ProcessingMode;
  paymentType: ProcessorRoutePaymentType;
  currency: string;
}

/** An account as the operator's view of a charge names it. */
export type ChargeProcessingAccount = Pick<ProcessorAccount, 'id' | 'provider' | 'name' | 'status'>;

/**
 * A charge as the operator sees its processing: the account it was routed to, the fallback its
 * route named and whether it failed over to it (decision 0056), and the provider's payment id.
 */
export interface ChargeProcessing {
  id: string;
  merchantId: string;
  storeId: string;
  mode: ProcessingMode;
  status: string;
  processorReference: string | null;
  processorAccount: ChargeProcessingAccount | null;
  fallbackProcessorAccount: ChargeProcessingAccount | null;
  processorFailedOverOn: Date | null;
  /** authorization calls sent to processorAccount while it had a fallback, and those provably not executed */
  processorCallsStarted: number;
  processorCallsUnexecuted: number;
}

const ACCOUNT_FOR_OPERATOR = { id: true, provider: true, name: true, status: true } as const;

/** One of a card token's own checks as the operator sees it (decision 0079). */
export interface TokenCheckOfToken {
  enabled: boolean;
  status: string | null;
  attempt: number | null;
  /** the account its attempt's hold went to; null: the mode's default processor */
  processorAccount: ChargeProcessingAccount | null;
  processorReference: string | null;
}

/** A card token's own checks, its 3-D Secure and CVV authorization (null: not asked for). */
export interface TokenCheckProcessing {
  id: string;
  merchantId: string;
  storeId: string;
  mode: ProcessingMode;
  paymentType: string;
  threeDs: TokenCheckOfToken | null;
  cvvAuthorize: TokenCheckOfToken | null;
}

function objectOf(value: unknown): Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : {};
}

/** A new row: every column but the status and the timestamps; `id` chosen by the caller (the cipher binds it). */
export type NewProcessorAccount = Omit<ProcessorAccount, 'status' | 'createdOn' | 'updatedOn'>;

/** The encrypted columns of an account's credentials. */
export type ProcessorAccountEncryption = Pick<ProcessorAccount, 'keyId' | 'iv' | 'ciphertext' | 'authTag'>;

/**
 * Processor accounts (docs/connectors.md, "Processor accounts"; decision 0055): a merchant's
 * accounts at payment processors, their credentials encrypted (libs/vault
 * ProcessorCredentialsCipher). The operator's CLI writes them; the services calling processors
 * read the account a charge was routed to.
 */
@Injectable()
export class ProcessorAccountsRepository {
  constructor(private readonly prisma: PrismaService) {}

  create(account: NewProcessorAccount): Promise<ProcessorAccount> {
    return this.prisma.processorAccount.create({ data: account });
  }

  find(id: string): Promise<ProcessorAccount | null> {
    return this.prisma.processorAccount.findUnique({ where: { id } });
  }

  /** A merchant's accounts, newest first. */
  listForMerchant(merchantId: string): Promise<ProcessorAccount[]> {
    return this.prisma.processorAccount.findMany({
      where: { merchantId },
      orderBy: [{ createdOn: 'desc' }, { id: 'desc' }],
    });
  }

  /** New credentials for an account (null: no such account). */
  async replaceCredentials(id: string, next: ProcessorAccountEncryption): Promise<ProcessorAccount | null> {
    const { count } = await this.prisma.processorAccount.updateMany({
      where: { id },
      data: { keyId: next.keyId, iv: next.iv, ciphertext: next.ciphertext, authTag: next.authTag },
    });
    return count > 0 ? this.find(id) : null;
  }

  /** null: no such account. */
  async setStatus(id: string, status: ProcessorAccountStatus): Promise<ProcessorAccount | null> {
    const { count } = await this.prisma.processorAccount.updateMany({ where: { id }, data: { status } });
    return count > 0 ? this.find(id) : null;
  }

  /** Up to `limit` accounts whose credentials another key than `activeKeyId` encrypted (vault:rotate). */
  findToRotate(activeKeyId: string, limit: number): Promise<ProcessorAccount[]> {
    return this.prisma.processorAccount.findMany({
      where: { keyId: { not: activeKeyId } },
      orderBy: { id: 'asc' },
      take: limit,
    });
  }

  /**
   * The same credentials under another key (vault:rotate); false when they changed since `old` was
   * read (a rotation of the account's credentials meanwhile), which leaves them as they are.
   */
  async replaceEncryption(
    old: Pick<ProcessorAccount, 'id' | 'keyId' | 'iv'>,
    next: ProcessorAccountEncryption,
  ): Promise<boolean> {
    const { count } = await this.prisma.processorAccount.updateMany({
      where: { id: old.id, keyId: old.keyId, iv: { equals: old.iv } },
      data: { keyId: next.keyId, iv: next.iv, ciphertext: next.ciphertext, authTag: next.authTag },
    });
    return count > 0;
  }

  /** How many accounts' credentials each key encrypted. */
  async countByKey(): Promise<Record<string, number>> {
    const rows = await this.prisma.processorAccount.groupBy({ by: ['keyId'], _count: { _all: true } });
    return Object.fromEntries(rows.map((row) => [row.keyId, row._count._all]));
  }

  /**
   * The account a charge's calls go to: the one it was routed to when it was created, or its
   * fallback once it failed over (decision 0056); null: none, the mode's default processor.
   */
  async findForCharge(chargeId: string): Promise<ProcessorAccount | null> {
    const charge = await this.prisma.charge.findUnique({
      where: { id: chargeId },
      select: { processorAccount: true, fallbackProcessorAccount: true, processorFailedOverOn: true },
    });
    if (!charge) return null;
    return charge.processorFailedOverOn ? charge.fallbackProcessorAccount : charge.processorAccount;
  }

  /**
   * The account a store's card payments of `mode` in `currency` are routed to, as the
   * charges_processor_route trigger chooses it for a charge: the route of that currency before the
   * one of `*`, to an active account of the mode; null: none (the mode's default processor). A card
   * token's own checks, its 3-D Secure and CVV authorization, go there (decision 0079).
   */
  async findCardRoute(
    storeId: string,
    mode: ProcessingMode,
    currency: string,
  ): Promise<Pick<ProcessorAccount, 'id' | 'provider'> | null> {
    if (mode !== 'test' && mode !== 'live') return null;
    const code = currency.toUpperCase();
    const routes = await this.prisma.processorRoute.findMany({
      where: {
        storeId,
        mode,
        paymentType: 'card',
        currency: { in: [code, '*'] },
        processorAccount: { status: 'active', mode },
      },
      select: { currency: true, processorAccount: { select: { id: true, provider: true } } },
    });
    const route = routes.find((r) => r.currency === code) ?? routes.find((r) => r.currency === '*');
    return route?.processorAccount ?? null;
  }

  /**
   * A card token's own checks as the operator sees them (decision 0079): each check's status,
   * attempt, the account its attempt's hold went to (null: the mode's default) and the provider's
   * payment id. null: no such token.
   */
  async findTokenCheckProcessing(tokenId: string): Promise<TokenCheckProcessing | null> {
    const token = await this.prisma.transactionToken.findUnique({
      where: { id: tokenId },
      select: { id: true, merchantId: true, storeId: true, mode: true, paymentType: true, data: true },
    });
    if (!token) return null;
    const data = objectOf(token.data);
    const checkOf = async (key: 'three_ds' | 'cvv_authorize'): Promise<TokenCheckOfToken | null> => {
      const check = objectOf(data[key]);
      if (Object.keys(check).length === 0) return null;
      const accountId = typeof check.processor_account_id === 'string' ? check.processor_account_id : null;
      return {
        enabled: check.enabled === true,
        status: typeof check.status === 'string' ? check.status : null,
        attempt: typeof check.attempt === 'number' ? check.attempt : null,
        processorAccount: accountId
          ? await this.prisma.processorAccount.findUnique({
              where: { id: accountId },
              select: ACCOUNT_FOR_OPERATOR,
            })
          : null,
        processorReference: typeof check.processor_reference === 'string' ? check.processor_reference : null,
      };
    };
    return {
      id: token.id,
      merchantId: token.merchantId,
      storeId: token.storeId,
      mode: token.mode,
      paymentType: token.paymentType,
      threeDs: await checkOf('three_ds'),
      cvvAuthorize: await checkOf('cvv_authorize'),
    };
  }

  /** A charge's processing for the operator (null: no such charge). */
  findChargeProcessing(chargeId: string): Promise<ChargeProcessing | null> {
    return this.prisma.charge.findUnique({
      where: { id: chargeId },
      select: {
        id: true,
        merchantId: true,
        storeId: true,
        mode: true,
        status: true,
        processorReference: true,
        processorAccount: { select: ACCOUNT_FOR_OPERATOR },
        fallbackProcessorAccount: { select: ACCOUNT_FOR_OPERATOR },
        processorFailedOverOn: true,
        processorCallsStarted: true,
        processorCallsUnexecuted: true,
      },
    });
  }

  /**
   * Sets the route of `key` to `processorAccountId`, with `fallbackProcessorAccountId` for the
   * charges it provably did not execute (decision 0056; null: none), replacing the route it had.
   */
  setRoute(
    key: ProcessorRouteKey,
    processorAccountId: string,
    fallbackProcessorAccountId: string | null = null,
  ): Promise<ProcessorRoute> {
    return this.prisma.processorRoute.upsert({
      where: { storeId_mode_paymentType_currency: key },
      create: { ...key, processorAccountId, fallbackProcessorAccountId },
      update: { processorAccountId, fallbackProcessorAccountId },
    });
  }

  /** false: the store had no such route. */
  async clearRoute(key: ProcessorRouteKey): Promise<boolean> {
    const { count } = await this.prisma.processorRoute.deleteMany({ where: key });
    return count > 0;
  }

  /** A store's routes, by mode, payment type and currency. */
  listRoutes(storeId: string): Promise<ProcessorRoute[]> {
    return this.prisma.processorRoute.findMany({
      where: { storeId },
      orderBy: [{ mode: 'asc' }, { paymentType: 'asc' }, { currency: 'asc' }],
    });
  }
}
