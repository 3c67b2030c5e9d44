import { Injectable } from '@nestjs/common';
import { ConflictError, type PageRequest } from '@kessai/domain';
import { Prisma, type Merchant, type Store } from '../generated/prisma/client';
import { ConsoleAuditRepository, type AuditEntry } from '../audit/console-audit.repository';
import { listPage } from '../keyset';
import { PrismaService } from '../prisma.service';
import {
  CLOSE_STORE_SUBSCRIPTIONS_AND_TOKENS,
  FIND_STORE_TOKEN_SETTINGS,
  LOCK_STORE_SUBSCRIPTIONS,
} from './stores.sql';
import type { AccessScope } from '../scope';
import { likeLiteral } from '../like';

export type StoreWithMerchant = Store & {
  merchant: Pick<Merchant, 'name' | 'configuration' | 'pciDssCompliant'>;
  /** the digest of the store's checkout logo (what its URL names), null without one */
  logo: { digest: string } | null;
};

/** A store's new checkout logo, checked already (a PNG, JPEG or WebP of at most LOGO_MAX_BYTES). */
export interface NewStoreLogo {
  contentType: string;
  image: Uint8Array;
  digest: string;
}

/** What one PATCH of a store changes; every part optional, all of it written or none. */
export interface StoreChange {
  name?: string;
  /** the new configuration layer from the stored one (may throw to refuse) */
  configuration?: (
    stored: Prisma.JsonValue,
    merchantConfiguration: Prisma.JsonValue,
  ) => Prisma.InputJsonObject;
  /** a new logo, or null to remove the store's */
  logo?: NewStoreLogo | null;
}

const WITH_MERCHANT = {
  merchant: { select: { name: true, configuration: true, pciDssCompliant: true } },
  logo: { select: { digest: true } },
} as const;

/** A change that lost the race for the store (its configuration changed, or it was deleted): read again. */
class ConfigurationOvertaken extends Error {}

/** How many times a configuration change is retried when another change overtook its read. */
const CONFIGURATION_UPDATE_ATTEMPTS = 5;

/** What creating a transaction token needs of its store and merchant. */
export interface StoreTokenSettings {
  pciDssCompliant: boolean;
  storeConfiguration: Prisma.JsonValue;
  merchantConfiguration: Prisma.JsonValue;
}

/** The stores a scope may see: its merchant's (or its one store), never a deleted one. */
function storeScope(scope: AccessScope) {
  return scope.storeId
    ? { merchantId: scope.merchantId, id: scope.storeId, deletedOn: null }
    : { merchantId: scope.merchantId, deletedOn: null };
}

/** What deleting a store changed besides the store. */
export interface StoreDeletion {
  revokedAppTokenIds: string[];
  subscriptionsCanceled: number;
  tokensDeactivated: number;
}

@Injectable()
export class StoresRepository {
  constructor(
    private readonly prisma: PrismaService,
    private readonly audit: ConsoleAuditRepository,
  ) {}

  /** The store if the scope may see it; null for missing, deleted and foreign stores alike. */
  findVisible(scope: AccessScope, id: string): Promise<Store | null> {
    if (scope.storeId && scope.storeId !== id) return Promise.resolve(null);
    return this.prisma.store.findFirst({ where: { id, merchantId: scope.merchantId, deletedOn: null } });
  }

  /** The store if the scope may see it, with its merchant's name and configuration (its lower layer). */
  findVisibleWithMerchant(scope: AccessScope, id: string): Promise<StoreWithMerchant | null> {
    if (scope.storeId && scope.storeId !== id) return Promise.resolve(null);
    return this.prisma.store.findFirst({
      where: { id, merchantId: scope.merchantId, deletedOn: null },
      include: WITH_MERCHANT,
    });
  }

  /**
   * Changes a visible store's name, configuration layer and logo in one transaction: all of them or,
   * when one is refused (a name in use: 409 STORE_EXISTS; `configuration` throwing), none. The
   * configuration is replaced only over the one it was computed from (retried on the fresh row, as
   * updateConfiguration). Null when the scope may not see the store. `audit` (a console write): its
   * row in the same transaction, naming the store, when something was written.
   */
  async change(
    scope: AccessScope,
    id: string,
    change: StoreChange,
    audit?: AuditEntry,
  ): Promise<StoreWithMerchant | null> {
    if (scope.storeId && scope.storeId !== id) return null;
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.prisma.$transaction(async (tx) => {
          const where = { id, merchantId: scope.merchantId, deletedOn: null };
          const store = await tx.store.findFirst({ where, include: WITH_MERCHANT });
          if (!store) return null;
          const configuration = change.configuration?.(store.configuration, store.merchant.configuration);
          // the store row first, whatever changes (a logo alone too): it is locked until the commit,
          // so a DELETE of the store or another PATCH waits; none of it is written to a store that
          // was deleted (or whose configuration changed) since it was read: read again
          if (change.name !== undefined || configuration !== undefined || change.logo !== undefined) {
            const { count } = await tx.store.updateMany({
              where: {
                ...where,
                ...(configuration === undefined
                  ? {}
                  : { configuration: { equals: store.configuration as Prisma.InputJsonValue } }),
              },
              data: { name: change.name, configuration, updatedOn: new Date() },
            });
            if (count === 0) throw new ConfigurationOvertaken();
            if (audit) await this.audit.record({ ...audit, targetId: id }, tx);
          }
          if (change.logo === null) await tx.storeLogo.deleteMany({ where: { storeId: id } });
          else if (change.logo) {
            const data = { ...change.logo, image: Buffer.from(change.logo.image) };
            await tx.storeLogo.upsert({
              where: { storeId: id },
              create: { storeId: id, ...data },
              update: data,
            });
          }
          return tx.store.findFirst({ where, include: WITH_MERCHANT });
        });
      } catch (error) {
        // the one unique key a change can break is the name's (the logo's row waits on the store's lock)
        if (
          change.name !== undefined &&
          error instanceof Prisma.PrismaClientKnownRequestError &&
          error.code === 'P2002'
        )
          throw new ConflictError('STORE_EXISTS');
        if (!(error instanceof ConfigurationOvertaken)) throw error;
        if (attempt >= CONFIGURATION_UPDATE_ATTEMPTS) throw new ConflictError('CONFLICTED');
      }
    }
  }

  /**
   * Replaces a visible store's stored configuration with `change(stored)`, never over a change made
   * since it was read (the update is conditional on the configuration read; retried on the fresh
   * row); null when the scope may not see the store. `change` may throw to refuse; nothing is written then.
   */
  async updateConfiguration(
    scope: AccessScope,
    id: string,
    change: (stored: Prisma.JsonValue, merchantConfiguration: Prisma.JsonValue) => Prisma.InputJsonObject,
  ): Promise<StoreWithMerchant | null> {
    for (let attempt = 1; ; attempt++) {
      const store = await this.findVisibleWithMerchant(scope, id);
      if (!store) return null;
      const configuration = change(store.configuration, store.merchant.configuration);
      const { count } = await this.prisma.store.updateMany({
        where: {
          id,
          merchantId: scope.merchantId,
          deletedOn: null,
          configuration: { equals: store.configuration as Prisma.InputJsonValue },
        },
        data: { configuration },
      });
      if (count === 1) return this.findVisibleWithMerchant(scope, id);
      if (attempt >= CONFIGURATION_UPDATE_ATTEMPTS) throw new ConflictError('CONFLICTED');
    }
  }

  /**
   * What creating a transaction token needs of its store and merchant, in one plain query (POST
   * /tokens' hot path); null when the store is not the merchant's.
   */
  async findTokenSettings(merchantId: string, storeId: string): Promise<StoreTokenSettings | null> {
    const row = (await this.prisma.run(FIND_STORE_TOKEN_SETTINGS, { storeId, merchantId }))[0];
    return row
      ? {
          pciDssCompliant: row.pci_dss_compliant,
          storeConfiguration: row.store_configuration,
          merchantConfiguration: row.merchant_configuration,
        }
      : null;
  }

  findById(id: string): Promise<Store | null> {
    return this.prisma.store.findUnique({ where: { id } });
  }

  /** The merchant's store of that name that is not deleted (names are unique among those). */
  findByName(merchantId: string, name: string): Promise<Store | null> {
    return this.prisma.store.findFirst({ where: { merchantId, name, deletedOn: null } });
  }

  list(scope: AccessScope, page: PageRequest, search?: string): Promise<StoreWithMerchant[]> {
    const where = {
      ...storeScope(scope),
      ...(search ? { name: { contains: likeLiteral(search), mode: 'insensitive' as const } } : {}),
    };
    return listPage(page, where, {
      findCursor: (w) => this.prisma.store.findFirst({ where: w, select: { id: true, createdOn: true } }),
      findMany: (args) => this.prisma.store.findMany({ ...args, include: WITH_MERCHANT }),
    });
  }

  /**
   * A new store, with its logo when given (one transaction); 409 STORE_EXISTS when the merchant has a
   * store of that name (not deleted).
   */
  async create(input: {
    merchantId: string;
    name: string;
    configuration?: Prisma.InputJsonObject;
    logo?: NewStoreLogo;
  }): Promise<Store> {
    const { logo, ...store } = input;
    try {
      return await this.prisma.store.create({
        data: {
          ...store,
          ...(logo ? { logo: { create: { ...logo, image: Buffer.from(logo.image) } } } : {}),
        },
      });
    } catch (error) {
      if (error instanceof Prisma.PrismaClientKnownRequestError && error.code === 'P2002') {
        throw new ConflictError('STORE_EXISTS');
      }
      throw error;
    }
  }

  /**
   * Deletes a store the merchant owns: it is deactivated, never removed (its charges, refunds and
   * events are the merchant's records). In one transaction: `deleted_on` set, its app tokens
   * revoked, its webhooks turned off, its subscriptions that are not final canceled and its active
   * transaction tokens deactivated, each with its event (CLOSE_STORE_SUBSCRIPTIONS_AND_TOKENS).
   * Null when the merchant has no such store (or it is deleted already).
   */
  async delete(
    merchantId: string,
    id: string,
    context: { correlationId?: string | null; at?: Date } = {},
  ): Promise<StoreDeletion | null> {
    const at = context.at ?? new Date();
    return this.prisma.$transaction(async (tx) => {
      // the store's row first (decision 0023): token and subscription writes, which read it FOR
      // SHARE, wait from here on; an UPDATE of deleted_on takes FOR NO KEY UPDATE, which the foreign
      // keys' checks (FOR KEY SHARE: a charge's insert, say) never wait for
      const { count } = await tx.store.updateMany({
        where: { id, merchantId, deletedOn: null },
        data: { deletedOn: at },
      });
      if (count === 0) return null;
      const revoked = await tx.appToken.updateManyAndReturn({
        where: { storeId: id, revokedOn: null },
        data: { revokedOn: at },
        select: { id: true },
      });
      await tx.webhook.updateMany({ where: { storeId: id, active: true }, data: { active: false } });
      // its subscriptions in id order, in a statement of their own: the cancel below then sees
      // every payment claimed while this waited (LOCK_STORE_SUBSCRIPTIONS)
      await this.prisma.run(LOCK_STORE_SUBSCRIPTIONS, { storeId: id, merchantId }, { db: tx });
      const [closed] = await this.prisma.run(
        CLOSE_STORE_SUBSCRIPTIONS_AND_TOKENS,
        { storeId: id, merchantId, correlationId: context.correlationId ?? null },
        { db: tx },
      );
      return {
        revokedAppTokenIds: revoked.map((token) => token.id),
        subscriptionsCanceled: closed.subscriptions_canceled,
        tokensDeactivated: closed.tokens_deactivated,
      };
    });
  }
}
