import { Inject, Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import {
  checkCardholder,
  checkCvv,
  validateCard,
  type CardBrand,
  type SensitiveCardData,
} from '@kessai/cards';
import {
  cvvAuthorizeRead,
  storedTokenCvvAuthorize,
  StoresRepository,
  TokenCvvAuthorizeRepository,
  TransactionTokensRepository,
  type AccessScope,
  type NewCardVaultEntry,
  type Prisma,
  type StoreTokenSettings,
  type TransactionToken,
  type TransactionTokenChanges,
  type TransactionTokenListItem,
} from '@kessai/db';
import {
  BusinessRuleError,
  CVV_AUTHORIZE_DEFAULT_CURRENCY,
  isUuid,
  TOKEN_THREE_DS_CURRENCY,
  NotFoundError,
  PermissionError,
  ServiceUnavailableError,
  ValidationError,
  type FieldError,
  type PageRequest,
} from '@kessai/domain';
import { LOGGER, type Correlation, type Logger } from '@kessai/observability';
import { accepted, type StoreScope } from '@kessai/payments';
import {
  disabledPaymentType,
  effectiveConfiguration,
  type RecurringTokenPrivilege,
} from '@kessai/store-configuration';
import { CardVault, PendingCvvStore } from '@kessai/vault';
import { detectQrBrand } from './qr-brand';
import { TokenCheckRouting } from './token-check-routing';
import {
  confirmationCodeHash,
  newConfirmationCode,
  TOKEN_CONFIRMATION_ATTEMPTS,
  TokenConfirmationDelivery,
} from './token-confirmation';
import {
  BILLING_KEYS,
  type BillingInput,
  type TokenActor,
  type TokenChangesInput,
  type TokenCreator,
  type TokenInput,
  type TokenListFilters,
  type TokenRenewalInput,
} from './token-inputs';

/** The processor account each of a card token's checks asked for was routed to (null: the mode's default). */
interface CheckAccounts {
  threeDs: string | null;
  cvvAuthorize: string | null;
}

interface PreparedToken {
  data: Prisma.InputJsonObject;
  vault: NewCardVaultEntry | null;
  cvv: string | null;
}

/**
 * The transaction token use cases (api-reference §5.1), for the gateway and any other front end:
 * create (with the PCI DSS gate, the type rules, card checks, the vault and the pending CVV),
 * confirm, renew, read, list, update, delete. Inputs are parsed already; answers are rows, which
 * each front end presents. Card numbers and CVVs exist here only inside SensitiveCardData /
 * CardNumber objects, whose text forms are masked, and leave only encrypted.
 */
@Injectable()
export class TransactionTokensService {
  constructor(
    private readonly tokens: TransactionTokensRepository,
    private readonly stores: StoresRepository,
    private readonly vault: CardVault,
    private readonly pendingCvvs: PendingCvvStore,
    private readonly confirmations: TokenConfirmationDelivery,
    @Inject(LOGGER) private readonly logger: Logger,
    private readonly cvvAuthorizations: TokenCvvAuthorizeRepository,
    private readonly checkRouting: TokenCheckRouting,
  ) {}

  /**
   * A new token in the creator's store. The store's rules come first (a payment type it switched
   * off, recurring tokens it does not allow), then the payment type's data, then the confirmation.
   */
  async create(
    actor: TokenCreator,
    request: TokenInput,
    correlation: Correlation,
  ): Promise<TransactionToken> {
    const storeId = actor.storeId;
    const settings = await this.stores.findTokenSettings(actor.merchantId, storeId);
    if (!settings) throw new NotFoundError('store');

    if (request.payment_type === 'card') checkCardDataAllowed(actor, settings);
    if (actor.checkoutLink) checkLinkToken(actor.checkoutLink, request);
    const configuration = effectiveConfiguration(settings.merchantConfiguration, settings.storeConfiguration);
    // a payment type the store has switched off: refused now, with the code its charge would get
    const disabled = disabledPaymentType(configuration, request.payment_type);
    if (disabled) throw new BusinessRuleError(disabled, [{ field: 'payment_type', reason: disabled }]);
    checkTypeRules(request, configuration.recurring_token_configuration.recurring_type);
    // a card token's own checks go where the store's card payments go, or are refused (decision 0079)
    const accounts = request.payment_type === 'card' ? await this.routeChecks(actor, request) : null;
    if (
      request.payment_type === 'qr_merchant' ||
      request.payment_type === 'apple_pay' ||
      request.payment_type === 'paidy'
    )
      checkTestModeOnly(actor, 'payment_type');

    const id = randomUUID();
    const prepared = this.prepare(id, request, actor.mode, accounts);
    // use_confirmation: the customer confirms the token with a code sent to its email
    if (request.use_confirmation && !request.email) {
      throw new BusinessRuleError('CONFIRMATION_REQUIRES_EMAIL', [
        { field: 'email', reason: 'CONFIRMATION_REQUIRES_EMAIL' },
      ]);
    }
    const code = request.use_confirmation ? newConfirmationCode() : null;

    if (prepared.cvv !== null) await this.keepCvv(id, prepared.cvv);
    try {
      const token = await this.tokens.create(
        {
          id,
          merchantId: actor.merchantId,
          storeId,
          mode: actor.mode,
          type: request.type,
          paymentType: request.payment_type,
          email: request.email ?? null,
          usageLimit: request.usage_limit ?? null,
          data: prepared.data,
          // a link page's token says which link made it (the merchant finds a token-only link's token so)
          metadata: actor.checkoutLink
            ? { ...request.metadata, checkout_link_id: actor.checkoutLink.id }
            : (request.metadata ?? {}),
          confirmationCodeHash: code === null ? null : confirmationCodeHash(id, code),
        },
        prepared.vault,
        { correlationId: correlation.correlationId },
      );
      // the store was deleted meanwhile (the insert waited for the deletion, then wrote nothing)
      if (!token) throw new NotFoundError('store');
      if (code !== null && token.email)
        await this.confirmations.deliver({ tokenId: id, to: token.email, code });
      return token;
    } catch (error) {
      if (prepared.cvv !== null) await this.pendingCvvs.discard(id).catch(() => undefined);
      throw error;
    }
  }

  /**
   * The code the customer received confirms a use_confirmation token (`token` as find() read it). A
   * wrong code is 400 WRONG_CONFIRMATION_CODE and counts; after TOKEN_CONFIRMATION_ATTEMPTS the code
   * is spent. A token not waiting for a code is 400 CANNOT_UPDATE_TRANSACTION_TOKEN, or the token as
   * it is when it is confirmed already.
   */
  async confirm(token: TransactionToken, code: string, correlation: Correlation): Promise<TransactionToken> {
    const result = await this.tokens.confirm(
      token.id,
      confirmationCodeHash(token.id, code),
      TOKEN_CONFIRMATION_ATTEMPTS,
      { correlationId: correlation.correlationId },
    );
    switch (result.outcome) {
      case 'confirmed':
        return result.token;
      case 'wrong_code':
        throw new BusinessRuleError('WRONG_CONFIRMATION_CODE', [
          { field: 'confirmation_code', reason: 'WRONG_CONFIRMATION_CODE' },
        ]);
      case 'not_confirmable':
        if (result.token.confirmed === true && result.token.active) return result.token;
        throw new BusinessRuleError('CANNOT_UPDATE_TRANSACTION_TOKEN');
    }
  }

  /**
   * A recurring or subscription card token (`token` as find() read it) gets a new token for the
   * card's new expiry (or a new card), answered with `previous_id`. The old token is deactivated and
   * its subscriptions move to the new one, with token_replaced, in one statement. Without a new
   * number the card's is taken from the vault and sealed again under the new token.
   */
  async renew(
    actor: TokenActor,
    token: TransactionToken,
    request: TokenRenewalInput,
    correlation: Correlation,
  ): Promise<TransactionToken> {
    const { data } = request;
    if (token.paymentType !== 'card' || token.type === 'one_time') {
      throw new BusinessRuleError('INVALID_TOKEN_TYPE', [{ field: 'type', reason: 'INVALID_TOKEN_TYPE' }]);
    }
    if (!token.active) throw new BusinessRuleError('CANNOT_UPDATE_TRANSACTION_TOKEN');
    if (data.card_number !== undefined || data.cvv !== undefined) {
      checkCardDataAllowed(actor, await this.stores.findTokenSettings(token.merchantId, token.storeId));
    }
    const newId = randomUUID();
    const cardNumber = data.card_number ?? (await this.storedCardNumber(token)).reveal();
    const checked = validateCard(
      { ...data, card_number: cardNumber },
      {
        mode: token.mode,
        fieldPrefix: 'data',
        cvvRequired: false,
      },
    );
    if (!checked.ok) {
      if (checked.code === 'VALIDATION_ERROR') throw new ValidationError(checked.errors);
      throw new BusinessRuleError(checked.code, checked.errors);
    }
    const card = checked.card;
    const billing = pickBilling(data);
    const cvv = card.revealCvv();
    if (cvv !== null) await this.keepCvv(newId, cvv);
    try {
      const renewed = await this.tokens.renew(
        token,
        {
          id: newId,
          email: data.email ?? token.email,
          data: {
            card: card.summary(),
            billing: Object.keys(billing).length > 0 ? billing : null,
            cvv_authorize: { enabled: false, status: 'inactive' },
            three_ds: null,
          },
        },
        this.vault.encrypt(card.cardNumber, { transactionTokenId: newId }),
        { correlationId: correlation.correlationId },
      );
      // lost a race with a DELETE or another renewal
      if (!renewed) throw new BusinessRuleError('CANNOT_UPDATE_TRANSACTION_TOKEN');
      // the old token is inactive now: its pending CVV goes, as on DELETE
      await this.pendingCvvs.discard(token.id).catch(() => undefined);
      return renewed;
    } catch (error) {
      if (cvv !== null) await this.pendingCvvs.discard(newId).catch(() => undefined);
      throw error;
    }
  }

  private async storedCardNumber(token: TransactionToken) {
    const entry = await this.tokens.findVault(token.id);
    if (!entry) throw new BusinessRuleError('CANNOT_UPDATE_TRANSACTION_TOKEN');
    return this.vault.decrypt(entry, { transactionTokenId: token.id });
  }

  /** A token of the scope's store; a malformed id is the same 404 as an unknown or foreign one. */
  async find(scope: StoreScope, id: string): Promise<TransactionToken> {
    const token = isUuid(id) ? await this.tokens.findInStore(scope.merchantId, scope.storeId, id) : null;
    if (!token) throw new NotFoundError('transaction_token');
    return token;
  }

  /**
   * A page of the tokens `scope` may see, in `storeId` (which must be visible to it) or, when null,
   * in the scope itself (a store token's own store, a merchant's all); with the total count on a
   * first page (total_hits, as UnivaPay's lists: api-reference §4).
   */
  async list(
    scope: AccessScope,
    storeId: string | null,
    filters: TokenListFilters,
    page: PageRequest,
  ): Promise<{ rows: TransactionTokenListItem[]; totalHits: number | null }> {
    if (storeId !== null && !(isUuid(storeId) && (await this.stores.findVisible(scope, storeId))))
      throw new NotFoundError('store');
    const where = { ...filters, storeId: storeId ?? scope.storeId };
    const rows = await this.tokens.list(scope.merchantId, where, page);
    if (page.cursor !== null) return { rows, totalHits: null };
    return { rows, totalHits: await this.tokens.count(scope.merchantId, where) };
  }

  /** Email, metadata and a card's cardholder, CVV and billing; `token` as find() read it. */
  async update(
    actor: TokenActor,
    token: TransactionToken,
    request: TokenChangesInput,
    correlation: Correlation,
  ): Promise<TransactionToken> {
    if (!token.active) throw new BusinessRuleError('CANNOT_UPDATE_TRANSACTION_TOKEN');
    // a CVV is card data: the same gate as a card token's creation
    if (token.paymentType === 'card' && request.data?.cvv !== undefined && actor.hasSecret) {
      checkCardDataAllowed(actor, await this.stores.findTokenSettings(token.merchantId, token.storeId));
    }

    const changes: TransactionTokenChanges = {};
    const changed: string[] = [];
    if (request.email !== undefined) {
      changes.email = request.email ?? null;
      changed.push('email');
    }
    if (request.metadata !== undefined) {
      changes.metadata = request.metadata;
      changed.push('metadata');
    }
    let cvv: string | null = null;
    if (request.data !== undefined) {
      const dataUpdate = this.cardDataUpdate(token, request.data);
      if (dataUpdate.data) changes.data = dataUpdate.data;
      cvv = dataUpdate.cvv;
      changed.push(...dataUpdate.changed);
    }
    const cvvAuthorize = token.paymentType === 'card' ? request.data?.cvv_authorize : undefined;
    // a new attempt goes where the store's card payments now go, or is refused before anything is
    // written (decision 0079)
    const stored = storedTokenCvvAuthorize(token.data);
    const account =
      cvvAuthorize?.enabled && startsCvvAttempt(stored)
        ? await this.checkRouting.route(
            token,
            'cvv_authorize',
            stored?.currency ?? CVV_AUTHORIZE_DEFAULT_CURRENCY,
          )
        : null;
    if (changed.length === 0 && cvvAuthorize === undefined) return token;

    // kept before the authorization is asked for, so that charge-service finds the new CVV
    if (cvv !== null) await this.keepCvv(token.id, cvv);
    let updated: TransactionToken | null = token;
    if (changed.length > 0) {
      updated = await this.tokens.update(token.id, changes, {
        changed,
        correlationId: correlation.correlationId,
      });
      if (!updated) throw new BusinessRuleError('CANNOT_UPDATE_TRANSACTION_TOKEN');
    }
    if (cvvAuthorize === undefined) return updated;
    const switched = await this.switchCvvAuthorize(
      updated,
      cvvAuthorize.enabled,
      cvv !== null,
      account,
      correlation,
    );
    return switched
      ? ((await this.tokens.findInStore(token.merchantId, token.storeId, token.id)) ?? updated)
      : updated;
  }

  /**
   * PATCH `data.cvv_authorize.enabled` (docs/transaction-tokens.md, "CVV authorization"): off makes
   * it `inactive`; on, from `inactive` or `failed`, starts a new attempt (`pending`, charge-service
   * authorizes), which needs a CVV — the one sent with the PATCH, or the token's still pending.
   * Asking for what it is already (on while pending or current, off while off) changes nothing.
   * `account`: the processor account a new attempt was routed to (null: the mode's default). False
   * when nothing was written.
   */
  private async switchCvvAuthorize(
    token: TransactionToken,
    enabled: boolean,
    cvvSent: boolean,
    account: string | null,
    correlation: Correlation,
  ): Promise<boolean> {
    const stored = storedTokenCvvAuthorize(token.data);
    const status = stored?.status ?? 'inactive';
    if (!enabled && status === 'inactive' && !stored?.enabled) return false;
    if (enabled && !startsCvvAttempt(stored)) return false;
    if (enabled && !cvvSent && (await this.pendingCvvs.read(token.id)) === null) {
      throw ValidationError.field('data.cvv', 'CVV_REQUIRED');
    }
    const next = enabled
      ? {
          enabled: true,
          status: 'pending' as const,
          currency: stored?.currency ?? CVV_AUTHORIZE_DEFAULT_CURRENCY,
          attempt: (stored?.attempt ?? 0) + 1,
          processor_account_id: account,
        }
      : { ...stored, enabled: false, status: 'inactive' as const };
    const written = await this.cvvAuthorizations.update(token.id, cvvAuthorizeRead(stored), next, {
      requested: enabled,
      correlationId: correlation.correlationId,
    });
    // it moved meanwhile (charge-service recorded an outcome, another PATCH)
    if (!written) throw new BusinessRuleError('CANNOT_UPDATE_TRANSACTION_TOKEN');
    return true;
  }

  /** Deactivates the token (it stays readable, inactive) and forgets its pending CVV. */
  async delete(token: TransactionToken, correlation: Correlation): Promise<void> {
    await this.tokens.deactivate(token.id, { correlationId: correlation.correlationId });
    await this.pendingCvvs.discard(token.id).catch(() => undefined);
  }

  /**
   * The accounts a new card token's checks go to (decision 0079): its 3-D Secure (unless `skip`)
   * in yen, its CVV authorization in its currency, each where the store's card payments in that
   * currency go; 400 NOT_SUPPORTED_BY_PROCESSOR when that account's provider cannot do it.
   */
  private async routeChecks(
    actor: TokenCreator,
    request: TokenInput & { payment_type: 'card' },
  ): Promise<CheckAccounts> {
    const token = { storeId: actor.storeId, mode: actor.mode };
    const threeDs = request.three_ds;
    const cvvAuthorize = request.data.cvv_authorize;
    return {
      threeDs:
        threeDs && threeDs.mode !== 'skip'
          ? await this.checkRouting.route(token, 'three_ds', TOKEN_THREE_DS_CURRENCY)
          : null,
      cvvAuthorize: cvvAuthorize?.enabled
        ? await this.checkRouting.route(
            token,
            'cvv_authorize',
            cvvAuthorize.currency ?? CVV_AUTHORIZE_DEFAULT_CURRENCY,
          )
        : null,
    };
  }

  private prepare(
    id: string,
    request: TokenInput,
    mode: TokenActor['mode'],
    accounts: CheckAccounts | null,
  ): PreparedToken {
    switch (request.payment_type) {
      case 'card':
        return this.prepareCard(id, request, mode, accounts ?? { threeDs: null, cvvAuthorize: null });
      case 'online': {
        const online = accepted(request.data);
        return {
          data: {
            brand: online.brand,
            call_method: online.call_method,
            user_identifier: online.user_identifier ?? null,
            gateway: online.gateway ?? null,
          },
          vault: null,
          cvv: null,
        };
      }
      case 'qr_scan': {
        const { scanned_qr } = accepted(request.data);
        // kept for the charge, never shown: the presenter picks brand and gateway only
        return {
          data: { brand: detectQrBrand(scanned_qr), gateway: null, scanned_qr },
          vault: null,
          cvv: null,
        };
      }
      case 'qr_merchant': {
        // the code itself is the operator's, made per charge (its issuer token): the token names the wallet
        const { brand } = accepted(request.data);
        return { data: { brand, gateway: null }, vault: null, cvv: null };
      }
      case 'apple_pay': {
        // Apple's ciphertext for the processor's key, kept as Apple made it for the charge and never
        // shown (the presenter shows nothing of it): Kessai holds no key to open it, so never sees
        // the device's card number or cryptogram
        const { payment_data: sent } = accepted(request.data);
        const header = sent.header;
        return {
          data: {
            payment_data: {
              version: sent.version,
              data: sent.data,
              signature: sent.signature,
              header: {
                ephemeralPublicKey: header.ephemeral_public_key,
                publicKeyHash: header.public_key_hash,
                transactionId: header.transaction_id,
                ...(header.application_data === undefined
                  ? {}
                  : { applicationData: header.application_data }),
              },
            },
          },
          vault: null,
          cvv: null,
        };
      }
      case 'paidy': {
        // Paidy's token is Paidy's reference to the consumer's consent, no card data: shown back
        const paidy = accepted(request.data);
        return {
          data: {
            paidy_token: paidy.paidy_token,
            phone_number: paidy.phone_number ?? null,
            shipping_address: paidy.shipping_address,
          },
          vault: null,
          cvv: null,
        };
      }
      case 'bank_transfer': {
        const bank = accepted(request.data);
        return {
          data: {
            brand: bank.brand,
            expiration_period: bank.expiration_period ?? null,
            expiration_time_shift: bank.expiration_time_shift ?? null,
          },
          vault: null,
          cvv: null,
        };
      }
      case 'konbini': {
        const konbini = accepted(request.data);
        return {
          data: {
            customer_name: konbini.customer_name,
            convenience_store: konbini.convenience_store,
            phone_number: konbini.phone_number,
            expiration_period: konbini.expiration_period ?? null,
            expiration_time_shift: konbini.expiration_time_shift ?? null,
          },
          vault: null,
          cvv: null,
        };
      }
    }
  }

  private prepareCard(
    id: string,
    request: TokenInput & { payment_type: 'card' },
    mode: TokenActor['mode'],
    accounts: CheckAccounts,
  ): PreparedToken {
    // the other fields' errors and the card's, together
    const { card: fields, billing: rest } = request.data;
    const errors: FieldError[] = rest.ok ? [] : [...rest.errors];
    const checked = validateCard(fields, { mode, fieldPrefix: 'data' });
    if (!checked.ok && checked.code === 'VALIDATION_ERROR') errors.push(...checked.errors);
    if (errors.length > 0 || !rest.ok) throw new ValidationError(errors);
    if (!checked.ok) throw new BusinessRuleError(checked.code, checked.errors);

    const card: SensitiveCardData = checked.card;
    const billing = pickBilling(rest.value);
    const threeDs = request.three_ds;
    const cvvAuthorize = request.data.cvv_authorize;
    // the authorization checks the CVV: without one there is nothing to authorize
    if (cvvAuthorize?.enabled && !card.hasCvv) throw ValidationError.field('data.cvv', 'CVV_REQUIRED');
    return {
      data: {
        card: card.summary(),
        billing: Object.keys(billing).length > 0 ? billing : null,
        cvv_authorize: cvvAuthorize?.enabled
          ? {
              enabled: true,
              status: 'pending',
              currency: cvvAuthorize.currency ?? CVV_AUTHORIZE_DEFAULT_CURRENCY,
              // the processor reference of the authorization names its attempt (enabling again adds one)
              attempt: 1,
              // where its hold goes (decision 0079; null: the mode's default), never shown
              processor_account_id: accounts.cvvAuthorize,
            }
          : { enabled: false, status: 'inactive' },
        three_ds: threeDs
          ? {
              enabled: threeDs.mode !== 'skip',
              status: 'pending',
              mode: threeDs.mode,
              redirect_endpoint: threeDs.redirect_endpoint ?? null,
              redirect_id: threeDs.redirect_id ?? null,
              // the processor reference of the authentication names its attempt (enableThreeDs adds one)
              attempt: 1,
              // where its hold goes (decision 0079; null: the mode's default), never shown
              processor_account_id: accounts.threeDs,
            }
          : null,
      },
      vault: this.vault.encrypt(card.cardNumber, { transactionTokenId: id }),
      cvv: card.revealCvv(),
    };
  }

  private cardDataUpdate(
    token: TransactionToken,
    update: NonNullable<TokenChangesInput['data']>,
  ): { data: Prisma.InputJsonObject | null; cvv: string | null; changed: string[] } {
    const given = Object.keys(update).filter((key) => update[key as keyof typeof update] !== undefined);
    if (token.paymentType !== 'card') {
      if (given.length === 0) return { data: null, cvv: null, changed: [] };
      throw new ValidationError(
        given.map((key) => ({ field: `data.${key}`, reason: 'FORBIDDEN_PARAMETER' })),
      );
    }
    const stored = asObject(token.data);
    const card = asObject(stored.card);
    const errors: FieldError[] = [];
    const changed: string[] = [];

    let cardholder = card.cardholder;
    if (update.cardholder !== undefined) {
      const checked = checkCardholder(update.cardholder);
      if (checked.ok) cardholder = checked.value;
      else errors.push({ field: 'data.cardholder', reason: checked.reason });
      changed.push('cardholder');
    }
    let cvv: string | null = null;
    if (update.cvv !== undefined) {
      const checked = checkCvv(update.cvv, (card.brand as CardBrand | undefined) ?? 'unknown');
      if (checked.ok) cvv = checked.value;
      else errors.push({ field: 'data.cvv', reason: checked.reason });
      changed.push('cvv');
    }
    if (errors.length > 0) throw new ValidationError(errors);

    const billingUpdate = pickBilling(update);
    if (Object.keys(billingUpdate).length > 0) changed.push('billing');
    const billing = { ...asObject(stored.billing), ...billingUpdate };
    const data = {
      ...stored,
      card: { ...card, cardholder },
      billing: Object.keys(billing).length > 0 ? billing : null,
    } as Prisma.InputJsonObject;
    const dataChanged = changed.some((c) => c !== 'cvv');
    return { data: dataChanged ? data : null, cvv, changed };
  }

  private async keepCvv(id: string, cvv: string): Promise<void> {
    try {
      await this.pendingCvvs.put(id, cvv);
    } catch (error) {
      // without Redis the CVV has nowhere safe to wait; refuse rather than store a token without it
      // (the error names Redis's trouble, never the CVV)
      this.logger.warn({ err: error }, 'CVV could not be kept in Redis, token refused with 503');
      throw new ServiceUnavailableError();
    }
  }
}

/**
 * Card data (a card token, a CVV) through a secret-bearing credential is for PCI DSS compliant
 * merchants only; a public token is the hosted checkout's, whose page is ours, so it may always
 * send it.
 */
function checkCardDataAllowed(actor: TokenActor, settings: StoreTokenSettings | null): void {
  if (actor.hasSecret && !settings?.pciDssCompliant) {
    throw new PermissionError('DIRECT_CARD_TOKEN_CREATION_DISABLED');
  }
}

/**
 * Whether enabling a CVV authorization starts a new attempt: unless it is on and pending or
 * current already.
 */
function startsCvvAttempt(stored: { enabled: boolean; status?: string } | null): boolean {
  return !(stored?.enabled && (stored.status === 'pending' || stored.status === 'current'));
}

/**
 * What only the test-mode processor (the simulator) does today: merchant-presented QR payments
 * (decision 0064), Apple Pay (decision 0067) and Paidy (decision 0068). No live processor adapter
 * of Kessai's offers them, so a live token of one is refused at creation. (A CVV authorization is
 * refused by the provider of the account it would go to instead: decision 0079.)
 */
function checkTestModeOnly(actor: TokenActor, field: 'payment_type'): void {
  if (actor.mode === 'test') return;
  throw new BusinessRuleError('NOT_SUPPORTED_BY_PROCESSOR', [
    { field, reason: 'NOT_SUPPORTED_BY_PROCESSOR' },
  ]);
}

/** What a checkout link's page pays with (docs/hosted-checkout.md). */
const LINK_PAYMENT_TYPES: readonly string[] = ['card', 'online', 'bank_transfer', 'konbini'];

/**
 * A checkout link's credentials make only what its page pays with: a card, online (QR operator),
 * bank-transfer or konbini token of the link's token type (the store's rules apply after, as to any
 * token).
 */
function checkLinkToken(link: NonNullable<TokenActor['checkoutLink']>, request: TokenInput): void {
  if (request.type !== link.tokenType) throw ValidationError.field('type', 'INVALID_TOKEN_TYPE');
  if (!LINK_PAYMENT_TYPES.includes(request.payment_type))
    throw ValidationError.field('payment_type', 'PAYMENT_TYPE_NOT_SUPPORTED');
}

/**
 * Which token types a payment type and the store allow: a usage limit for recurring tokens only;
 * recurring tokens as the store's recurring_type says (none; bounded: with a usage limit); one-time
 * tokens only for a code or account given out per charge; 3-D Secure for cards only.
 */
function checkTypeRules(request: TokenInput, recurring: RecurringTokenPrivilege): void {
  if (request.usage_limit && request.type !== 'recurring') {
    throw new BusinessRuleError('USAGE_LIMIT_NOT_APPLICABLE', [
      { field: 'usage_limit', reason: 'USAGE_LIMIT_NOT_APPLICABLE' },
    ]);
  }
  if (request.type === 'recurring') {
    if (recurring === 'none') {
      throw new BusinessRuleError('RECURRING_TOKEN_NOT_ALLOWED', [
        { field: 'type', reason: 'RECURRING_TOKEN_NOT_ALLOWED' },
      ]);
    }
    if (recurring === 'bounded' && !request.usage_limit) {
      throw new BusinessRuleError('RECURRING_USAGE_LIMIT_REQUIRED', [
        { field: 'usage_limit', reason: 'RECURRING_USAGE_LIMIT_REQUIRED' },
      ]);
    }
  }
  if (
    (request.payment_type === 'qr_scan' ||
      request.payment_type === 'qr_merchant' ||
      request.payment_type === 'apple_pay' ||
      request.payment_type === 'bank_transfer' ||
      request.payment_type === 'konbini') &&
    request.type !== 'one_time'
  ) {
    // a consumer-presented code pays once and expires within minutes, a merchant-presented one is
    // made for its charge's amount, as Apple Pay's payment data (its cryptogram pays once); a virtual account or a
    // payment code is given out per charge (docs/bank-transfer-and-konbini.md)
    throw new ValidationError([{ field: 'type', reason: 'ONE_TIME_ONLY_ALLOWED' }]);
  }
  if (request.payment_type !== 'card' && request.three_ds) {
    throw new ValidationError([{ field: 'three_ds', reason: 'ONLY_FOR_CARD_PAYMENT' }]);
  }
}

function pickBilling(source: BillingInput): Record<string, Prisma.InputJsonValue> {
  const billing: Record<string, Prisma.InputJsonValue> = {};
  for (const key of BILLING_KEYS) {
    const value = source[key];
    if (value !== undefined) billing[key] = value as Prisma.InputJsonValue;
  }
  return billing;
}

function asObject(value: unknown): Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : {};
}
