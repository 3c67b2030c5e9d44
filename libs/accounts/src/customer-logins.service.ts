import { createHmac, randomInt, randomUUID } from 'node:crypto';
import { Inject, Injectable, type OnModuleDestroy } from '@nestjs/common';
import { APP_CONFIG, requireSecrets, type AppConfig } from '@kessai/config';
import { signCustomerToken, verifyCustomerToken, type CustomerTokenClaims } from '@kessai/auth';
import { CustomerLoginCodesRepository, StoresRepository, TransactionTokensRepository } from '@kessai/db';
import { AuthenticationError, BusinessRuleError, NotFoundError, PermissionError } from '@kessai/domain';
import { LOGGER, type Logger } from '@kessai/observability';
import { effectiveConfiguration } from '@kessai/store-configuration';
import { CustomerLoginDelivery } from './customer-login-delivery';
import { normalizeEmail } from './passwords';

/** How long an emailed login code can be traded for a customer token. */
export const CUSTOMER_LOGIN_CODE_TTL_MS = 10 * 60 * 1000;
/** Tries a code takes, the right one included; then a new code is needed. */
export const CUSTOMER_LOGIN_ATTEMPTS = 5;
/** How long a customer token is valid; then the customer asks for a new code. */
export const CUSTOMER_TOKEN_TTL_MS = 30 * 60 * 1000;

/** The store a login is asked for, and the mode of the app token that asks. */
export interface CustomerLoginStore {
  merchantId: string;
  storeId: string;
  mode: 'test' | 'live';
}

/** A verified customer token: whose it is and where it acts. */
export interface CustomerIdentity {
  tokenId: string;
  merchantId: string;
  storeId: string;
  mode: 'test' | 'live';
  /** normalized */
  email: string;
}

/**
 * Customers' self-service logins (the SDK's refers.sendCode / refers.authorize, decision 0058): a
 * six-digit code mailed to a customer of the store (an address the store has a token for), stored as
 * an HMAC, valid CUSTOMER_LOGIN_CODE_TTL_MS and CUSTOMER_LOGIN_ATTEMPTS tries; the right code is
 * traded for a customer token (CUSTOMER_TOKEN_TTL_MS) that may update the card of, or cancel, the
 * customer's own subscriptions at that store and nothing else.
 */
@Injectable()
export class CustomerLoginsService implements OnModuleDestroy {
  readonly #signingKey: string;
  /** code requests accepted and still being carried out (`accept`) */
  private readonly pending = new Set<Promise<void>>();

  constructor(
    private readonly codes: CustomerLoginCodesRepository,
    private readonly stores: StoresRepository,
    private readonly tokens: TransactionTokensRepository,
    private readonly delivery: CustomerLoginDelivery,
    @Inject(APP_CONFIG) config: AppConfig,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {
    this.#signingKey = requireSecrets(config, ['JWT_SIGNING_KEY'], 'CustomerLoginsService').JWT_SIGNING_KEY;
  }

  /**
   * refers.sendCode: the store checked (404 when the caller cannot see it), then the code's work
   * started and the call answered at once, the same whether the address is the store's customer or
   * not (what happened is logged, never answered: as password resets, issue 27). A store whose
   * customer logins are switched off answers 403 CUSTOMER_LOGIN_NOT_ENABLED and mails nothing.
   */
  async accept(store: CustomerLoginStore, email: string): Promise<void> {
    const found = await this.stores.findVisibleWithMerchant(
      { merchantId: store.merchantId, storeId: null },
      store.storeId,
    );
    if (!found) throw new NotFoundError('store');
    if (!loginsEnabled(found)) throw loginsNotEnabled();
    const work = this.sendCode(store, found.name, normalizeEmail(email)).catch((error: unknown) => {
      this.logger.error({ storeId: store.storeId, err: error }, 'customer login code was not sent');
    });
    this.pending.add(work);
    void work.finally(() => this.pending.delete(work));
  }

  /** Resolves once every accepted request has been carried out (or failed). */
  async settled(): Promise<void> {
    while (this.pending.size > 0) await Promise.all([...this.pending]);
  }

  async onModuleDestroy(): Promise<void> {
    await this.settled();
  }

  /** A new code for a customer of the store (replacing its last), mailed; nothing for another address. */
  async sendCode(
    store: CustomerLoginStore,
    storeName: string,
    email: string,
    now = new Date(),
  ): Promise<void> {
    if (!(await this.tokens.hasCustomerEmail(store.storeId, store.mode, email))) return;
    const id = randomUUID();
    const code = String(randomInt(0, 1_000_000)).padStart(6, '0');
    const expiresOn = new Date(now.getTime() + CUSTOMER_LOGIN_CODE_TTL_MS);
    await this.codes.replace({ ...store, email, id, codeHash: this.codeHash(id, code), expiresOn }, now);
    await this.delivery.deliver({ codeId: id, to: email, storeName, code, expiresOn });
  }

  /**
   * refers.authorize: the customer's latest code tried (each try counted first); the right one
   * answers a customer token. No code (an address that is no customer of the store has none), a
   * spent or expired one: 400 EXPIRED_OTP_TOKEN; a wrong one: 400 WRONG_CONFIRMATION_CODE (field
   * `otp` both). Logins switched off: 403 CUSTOMER_LOGIN_NOT_ENABLED, the code not tried (a code
   * mailed before the switch buys nothing).
   */
  async authorize(
    store: CustomerLoginStore,
    email: string,
    otp: string,
    ipAddress: string,
    now = new Date(),
  ): Promise<{ jwt: string; expiresOn: Date }> {
    const found = await this.stores.findVisibleWithMerchant(
      { merchantId: store.merchantId, storeId: null },
      store.storeId,
    );
    if (!found) throw new NotFoundError('store');
    if (!loginsEnabled(found)) throw loginsNotEnabled();
    const key = { ...store, email: normalizeEmail(email) };
    const code = await this.codes.findLatestUnused(key);
    if (!code) throw expiredCode();
    const outcome = await this.codes.tryCode(
      code.id,
      this.codeHash(code.id, otp),
      CUSTOMER_LOGIN_ATTEMPTS,
      now,
    );
    if (outcome === 'spent') throw expiredCode();
    if (outcome === 'wrong')
      throw new BusinessRuleError('WRONG_CONFIRMATION_CODE', [
        { field: 'otp', reason: 'WRONG_CONFIRMATION_CODE' },
      ]);
    const expiresOn = new Date(now.getTime() + CUSTOMER_TOKEN_TTL_MS);
    const jwt = signCustomerToken(
      {
        id: randomUUID(),
        merchantId: store.merchantId,
        storeId: store.storeId,
        mode: store.mode,
        email: key.email,
        storeName: found.name,
        lang: languageOf(found.configuration) ?? languageOf(found.merchant.configuration) ?? 'JA_JP',
        logoUri: '',
        ipAddress,
        expiresOn,
      },
      this.#signingKey,
      now,
    );
    return { jwt, expiresOn };
  }

  /** The identity of a customer token, or 401 (INVALID_LOGIN_TOKEN, EXPIRED_LOGIN_TOKEN). */
  authenticate(jwt: string, now = new Date()): CustomerIdentity {
    const claims: CustomerTokenClaims | 'expired' | null = verifyCustomerToken(jwt, this.#signingKey, now);
    if (claims === 'expired') throw new AuthenticationError('EXPIRED_LOGIN_TOKEN');
    if (claims === null) throw new AuthenticationError('INVALID_LOGIN_TOKEN');
    return {
      tokenId: claims.jti,
      merchantId: claims.merchant_id,
      storeId: claims.store_id,
      mode: claims.mode,
      email: claims.email,
    };
  }

  /**
   * Whether a customer token's store still takes it: `deleted` (its customers act on nothing),
   * `disabled` (customer logins switched off since the token was issued: no token of the store's
   * acts any more), or `open`.
   */
  async storeState(customer: CustomerIdentity): Promise<'open' | 'deleted' | 'disabled'> {
    const store = await this.stores.findVisibleWithMerchant(
      { merchantId: customer.merchantId, storeId: null },
      customer.storeId,
    );
    if (store === null) return 'deleted';
    return loginsEnabled(store) ? 'open' : 'disabled';
  }

  /** What the database keeps of a code: an HMAC under the signing key, so a copy of the table guesses nothing. */
  private codeHash(id: string, code: string): string {
    return createHmac('sha256', this.#signingKey).update(`customer_login:${id}:${code.trim()}`).digest('hex');
  }
}

/** Whether the store (its merchant's layer, then its own) lets its customers log in (decision 0070). */
function loginsEnabled(store: { configuration: unknown; merchant: { configuration: unknown } }): boolean {
  return effectiveConfiguration(store.merchant.configuration, store.configuration)
    .customer_management_configuration.enabled;
}

/** The SDK's code for a store whose customer logins are off (api-reference §2.4, customer management). */
export function loginsNotEnabled(): PermissionError {
  return new PermissionError('CUSTOMER_LOGIN_NOT_ENABLED', [
    { field: null, reason: 'CUSTOMER_LOGIN_NOT_ENABLED' },
  ]);
}

/** A configuration layer's `language`, when it sets one. */
function languageOf(layer: unknown): string | undefined {
  const language = (layer as { language?: unknown } | null)?.language;
  return typeof language === 'string' ? language : undefined;
}

function expiredCode() {
  return new BusinessRuleError('EXPIRED_OTP_TOKEN', [{ field: 'otp', reason: 'EXPIRED_OTP_TOKEN' }]);
}
