import { Inject, Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import {
  checkCardholder,
  checkCvv,
  validateCard,
  type CardBrand,
  type SensitiveCardData,
} from '@kessai/cards';
import type { Correlation } from '@kessai/observability';
import {
  StoresRepository,
  TransactionTokensRepository,
  type NewCardVaultEntry,
  type StoreTokenSettings,
  type Prisma,
  type TransactionToken,
  type TransactionTokenChanges,
  type TransactionTokenFilters,
} from '@kessai/db';
import {
  BusinessRuleError,
  NotFoundError,
  PermissionError,
  StoreTokenRequiredError,
  ServiceUnavailableError,
  ValidationError,
  type FieldError,
} from '@kessai/domain';
import { parsePageRequest, presentPage } from '../http/pagination';
import { CardVault, PendingCvvStore } from '@kessai/vault';
import {
  disabledPaymentType,
  effectiveConfiguration,
  type RecurringTokenPrivilege,
} from '@kessai/store-configuration';
import { z, type ZodType, type ZodTypeDef } from 'zod';
import type { CheckoutLinkPrincipal, Principal } from '../auth/principal';
import { parseInput, toFieldErrors } from '../http/validation';
import { detectQrBrand } from './qr-brand';
import {
  BILLING_KEYS,
  cardDataSchema,
  confirmTokenSchema,
  createTokenSchema,
  renewTokenSchema,
  listFiltersSchema,
  onlineDataSchema,
  bankTransferDataSchema,
  konbiniDataSchema,
  qrScanDataSchema,
  updateTokenSchema,
  type CreateTokenRequest,
} from './transaction-token.schemas';
import { presentToken, presentTokenListItem } from '@kessai/presenters';
import {
  confirmationCodeHash,
  newConfirmationCode,
  TOKEN_CONFIRMATION_ATTEMPTS,
  TokenConfirmationDelivery,
} from './token-confirmation';
import { LOGGER, type Logger } from '@kessai/observability';

interface PreparedToken {
  data: Prisma.InputJsonObject;
  vault: NewCardVaultEntry | null;
  cvv: string | null;
}

const uuid = z.string().uuid();

/**
 * The transaction token use cases (api-reference §5.1): create (with the PCI DSS gate, card checks,
 * the vault and the pending CVV), read, list, update, delete, and the one-use claim that charges
 * will make. Card numbers and CVVs exist here only inside SensitiveCardData / CardNumber objects,
 * whose text forms are masked, and leave only encrypted.
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
  ) {}

  async create(principal: Principal, body: unknown, context: Correlation) {
    const storeId = storeOf(principal);
    const request = parseInput(createTokenSchema, body);
    const settings = await this.stores.findTokenSettings(principal.merchantId, storeId);
    if (!settings) throw new NotFoundError('store');

    if (request.payment_type === 'card') checkCardDataAllowed(principal, settings);
    if (principal.checkoutLink) checkLinkToken(principal.checkoutLink, request);
    const configuration = effectiveConfiguration(settings.merchantConfiguration, settings.storeConfiguration);
    // a payment type the store has switched off: refused now, with the code its charge would get
    const disabled = disabledPaymentType(configuration, request.payment_type);
    if (disabled) throw new BusinessRuleError(disabled, [{ field: 'payment_type', reason: disabled }]);
    checkTypeRules(request, configuration.recurring_token_configuration.recurring_type);

    const id = randomUUID();
    const prepared = this.prepare(id, request, principal.mode);
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
          merchantId: principal.merchantId,
          storeId,
          mode: principal.mode,
          type: request.type,
          paymentType: request.payment_type,
          email: request.email ?? null,
          usageLimit: request.usage_limit ?? null,
          data: prepared.data,
          // a link page's token says which link made it (the merchant finds a token-only link's token so)
          metadata: principal.checkoutLink
            ? { ...request.metadata, checkout_link_id: principal.checkoutLink.id }
            : (request.metadata ?? {}),
          confirmationCodeHash: code === null ? null : confirmationCodeHash(id, code),
        },
        prepared.vault,
        { correlationId: context.correlationId },
      );
      // the store was deleted meanwhile (the insert waited for the deletion, then wrote nothing)
      if (!token) throw new NotFoundError('store');
      if (code !== null && token.email)
        await this.confirmations.deliver({ tokenId: id, to: token.email, code });
      return presentToken(token);
    } catch (error) {
      if (prepared.cvv !== null) await this.pendingCvvs.discard(id).catch(() => undefined);
      throw error;
    }
  }

  /**
   * POST …/tokens/{id}/confirm: the code the customer received confirms a use_confirmation token
   * (200, the token). A wrong code is 400 WRONG_CONFIRMATION_CODE and counts; after
   * TOKEN_CONFIRMATION_ATTEMPTS the code is spent. A token not waiting for a code is 400
   * CANNOT_UPDATE_TRANSACTION_TOKEN, or the token as it is when it is confirmed already.
   */
  async confirm(principal: Principal, storeId: string, id: string, body: unknown, context: Correlation) {
    const token = await this.findVisible(principal, storeId, id);
    const { confirmation_code } = parseInput(confirmTokenSchema, body);
    const result = await this.tokens.confirm(
      token.id,
      confirmationCodeHash(token.id, confirmation_code),
      TOKEN_CONFIRMATION_ATTEMPTS,
      { correlationId: context.correlationId },
    );
    switch (result.outcome) {
      case 'confirmed':
        return presentToken(result.token);
      case 'wrong_code':
        throw new BusinessRuleError('WRONG_CONFIRMATION_CODE', [
          { field: 'confirmation_code', reason: 'WRONG_CONFIRMATION_CODE' },
        ]);
      case 'not_confirmable':
        if (result.token.confirmed === true && result.token.active) return presentToken(result.token);
        throw new BusinessRuleError('CANNOT_UPDATE_TRANSACTION_TOKEN');
    }
  }

  /**
   * POST (/stores/{storeId})/tokens/{id}/renew: a recurring or subscription card token gets a new
   * token for the card's new expiry (or a new card), answered with `previous_id`. The old token is
   * deactivated and its subscriptions move to the new one, with token_replaced, in one statement.
   * Without a new number the card's is taken from the vault and sealed again under the new token.
   */
  async renew(principal: Principal, storeId: string | null, id: string, body: unknown, context: Correlation) {
    const token = await this.findVisible(principal, storeId ?? storeOf(principal), id);
    const { data } = parseInput(renewTokenSchema, body);
    if (token.paymentType !== 'card' || token.type === 'one_time') {
      throw new BusinessRuleError('INVALID_TOKEN_TYPE', [{ field: 'type', reason: 'INVALID_TOKEN_TYPE' }]);
    }
    if (!token.active) throw new BusinessRuleError('CANNOT_UPDATE_TRANSACTION_TOKEN');
    if (data.card_number !== undefined || data.cvv !== undefined) {
      checkCardDataAllowed(principal, await this.stores.findTokenSettings(token.merchantId, token.storeId));
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
        { correlationId: context.correlationId },
      );
      // lost a race with a DELETE or another renewal
      if (!renewed) throw new BusinessRuleError('CANNOT_UPDATE_TRANSACTION_TOKEN');
      // the old token is inactive now: its pending CVV goes, as on DELETE
      await this.pendingCvvs.discard(token.id).catch(() => undefined);
      return presentToken(renewed);
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

  async get(principal: Principal, storeId: string, id: string) {
    return presentToken(await this.findVisible(principal, storeId, id));
  }

  /** `storeId` from the path, or null for GET /tokens (a store token's own store, a merchant's all). */
  async list(principal: Principal, storeId: string | null, query: Record<string, unknown>) {
    const page = parsePageRequest(query);
    const filters = parseInput(listFiltersSchema, query);
    let scopeStore = principal.storeId;
    if (storeId !== null) {
      if (!uuid.safeParse(storeId).success) throw new NotFoundError('store');
      if (!(await this.stores.findVisible(principal, storeId))) throw new NotFoundError('store');
      scopeStore = storeId;
    }
    const where: TransactionTokenFilters = {
      storeId: scopeStore,
      type: filters.type,
      mode: filters.mode,
      paymentType: filters.payment_type,
      search: filters.search || undefined,
      customerId: filters.customer_id,
    };
    const rows = await this.tokens.list(principal.merchantId, where, page);
    // total_hits only on a first page, as UnivaPay's lists (api-reference §4)
    const totalHits = page.cursor !== null ? null : await this.tokens.count(principal.merchantId, where);
    return presentPage(rows, page, presentTokenListItem, totalHits);
  }

  async update(principal: Principal, storeId: string, id: string, body: unknown, context: Correlation) {
    const token = await this.findVisible(principal, storeId, id);
    const request = parseInput(updateTokenSchema, body);
    if (!token.active) throw new BusinessRuleError('CANNOT_UPDATE_TRANSACTION_TOKEN');
    // a CVV is card data: the same gate as a card token's creation
    if (token.paymentType === 'card' && request.data?.cvv !== undefined && principal.hasSecret) {
      checkCardDataAllowed(principal, await this.stores.findTokenSettings(token.merchantId, token.storeId));
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
    if (changed.length === 0) return presentToken(token);

    if (cvv !== null) await this.keepCvv(token.id, cvv);
    const updated = await this.tokens.update(token.id, changes, {
      changed,
      correlationId: context.correlationId,
    });
    if (!updated) throw new BusinessRuleError('CANNOT_UPDATE_TRANSACTION_TOKEN');
    return presentToken(updated);
  }

  /** Deactivates the token (it stays readable, inactive) and forgets its pending CVV. */
  async delete(principal: Principal, storeId: string, id: string, context: Correlation): Promise<void> {
    const token = await this.findVisible(principal, storeId, id);
    await this.tokens.deactivate(token.id, { correlationId: context.correlationId });
    await this.pendingCvvs.discard(token.id).catch(() => undefined);
  }

  /** The token of the caller's store; 404 for a malformed, unknown or foreign one. */
  async findVisible(principal: Principal, storeId: string, id: string): Promise<TransactionToken> {
    // a malformed id, another store's path or another merchant's token: all the same 404
    if (!uuid.safeParse(storeId).success || !uuid.safeParse(id).success)
      throw new NotFoundError('transaction_token');
    if (principal.storeId !== null && principal.storeId !== storeId)
      throw new NotFoundError('transaction_token');
    const token = await this.tokens.findInStore(principal.merchantId, storeId, id);
    if (!token) throw new NotFoundError('transaction_token');
    return token;
  }

  private prepare(id: string, request: CreateTokenRequest, mode: Principal['mode']): PreparedToken {
    switch (request.payment_type) {
      case 'card':
        return this.prepareCard(id, request, mode);
      case 'online': {
        const online = parseData(onlineDataSchema, request.data);
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
        const { scanned_qr } = parseData(qrScanDataSchema, request.data);
        // kept for the charge, never shown: the presenter picks brand and gateway only
        return {
          data: { brand: detectQrBrand(scanned_qr), gateway: null, scanned_qr },
          vault: null,
          cvv: null,
        };
      }
      case 'bank_transfer': {
        const bank = parseData(bankTransferDataSchema, request.data);
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
        const konbini = parseData(konbiniDataSchema, request.data);
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

  private prepareCard(id: string, request: CreateTokenRequest, mode: Principal['mode']): PreparedToken {
    const rest = cardDataSchema.safeParse(request.data);
    const errors: FieldError[] = rest.success ? [] : prefixed(toFieldErrors(rest.error.issues));
    const checked = validateCard(request.data, { mode, fieldPrefix: 'data' });
    if (!checked.ok && checked.code === 'VALIDATION_ERROR') errors.push(...checked.errors);
    if (errors.length > 0 || !rest.success) throw new ValidationError(errors);
    if (!checked.ok) throw new BusinessRuleError(checked.code, checked.errors);

    const card: SensitiveCardData = checked.card;
    const billing = pickBilling(rest.data);
    const threeDs = request.three_ds;
    return {
      data: {
        card: card.summary(),
        billing: Object.keys(billing).length > 0 ? billing : null,
        cvv_authorize: { enabled: false, status: 'inactive' },
        three_ds: threeDs
          ? {
              enabled: threeDs.mode !== 'skip',
              status: 'pending',
              mode: threeDs.mode,
              redirect_endpoint: threeDs.redirect_endpoint ?? null,
              redirect_id: threeDs.redirect_id ?? null,
              // the processor reference of the authentication names its attempt (enableThreeDs adds one)
              attempt: 1,
            }
          : null,
      },
      vault: this.vault.encrypt(card.cardNumber, { transactionTokenId: id }),
      cvv: card.revealCvv(),
    };
  }

  private cardDataUpdate(
    token: TransactionToken,
    update: NonNullable<z.infer<typeof updateTokenSchema>['data']>,
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

function storeOf(principal: Principal): string {
  // POST /tokens names no store: it is the app token's (api-reference §1.2)
  if (principal.storeId === null) throw new StoreTokenRequiredError();
  return principal.storeId;
}

/**
 * Card data (a card token, a CVV) through the API is for PCI DSS compliant merchants only; a
 * secret-less (public) token is the hosted checkout's, whose page is ours, so it may always send it.
 */
function checkCardDataAllowed(principal: Principal, settings: StoreTokenSettings | null): void {
  if (principal.hasSecret && !settings?.pciDssCompliant) {
    throw new PermissionError('DIRECT_CARD_TOKEN_CREATION_DISABLED');
  }
}

/**
 * A checkout link's credentials make only what its page pays with: a card or online (QR operator)
 * token of the link's token type.
 */
function checkLinkToken(link: CheckoutLinkPrincipal, request: CreateTokenRequest): void {
  if (request.type !== link.tokenType) throw ValidationError.field('type', 'INVALID_TOKEN_TYPE');
  if (request.payment_type !== 'card' && request.payment_type !== 'online')
    throw ValidationError.field('payment_type', 'PAYMENT_TYPE_NOT_SUPPORTED');
}

function checkTypeRules(request: CreateTokenRequest, recurring: RecurringTokenPrivilege): void {
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
      request.payment_type === 'bank_transfer' ||
      request.payment_type === 'konbini') &&
    request.type !== 'one_time'
  ) {
    // a consumer-presented code pays once and expires within minutes; a virtual account or a
    // payment code is given out per charge (docs/bank-transfer-and-konbini.md)
    throw new ValidationError([{ field: 'type', reason: 'ONE_TIME_ONLY_ALLOWED' }]);
  }
  if (request.payment_type !== 'card' && request.three_ds) {
    throw new ValidationError([{ field: 'three_ds', reason: 'ONLY_FOR_CARD_PAYMENT' }]);
  }
}

function parseData<T>(schema: ZodType<T, ZodTypeDef, unknown>, data: unknown): T {
  const result = schema.safeParse(data);
  if (!result.success) throw new ValidationError(prefixed(toFieldErrors(result.error.issues)));
  return result.data;
}

function prefixed(errors: FieldError[]): FieldError[] {
  return errors.map((e) => ({ ...e, field: e.field === null ? 'data' : `data.${e.field}` }));
}

function pickBilling(
  source: Partial<Record<(typeof BILLING_KEYS)[number], unknown>>,
): Record<string, Prisma.InputJsonValue> {
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
