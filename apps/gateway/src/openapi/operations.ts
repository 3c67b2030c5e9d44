import type { ZodTypeAny } from 'zod';
import { komojuEventSchema, processorCallbackWireSchema, stripeEventSchema } from '@kessai/processor';
import type { LoginController } from '../accounts/login.controller';
import type { PasswordResetsController } from '../accounts/password-resets.controller';
import {
  credentials,
  customerAuthenticationSchema,
  resetConfirmation,
  resetRequest,
} from '../accounts/account.schemas';
import type { AppJwtsController } from '../app-jwts/app-jwts.controller';
import { createAppJwtSchema } from '../app-jwts/app-jwt.schemas';
import type { CancelsController } from '../cancels/cancels.controller';
import { createCancelSchema, updateCancelSchema } from '../cancels/cancel.schemas';
import type { ChargesController } from '../charges/charges.controller';
import {
  captureSchema,
  createChargeSchema,
  extendExpirySchema,
  listChargesSchema,
  updateChargeSchema,
} from '../charges/charge.schemas';
import type { CheckoutInfoController } from '../checkout-info/checkout-info.controller';
import { checkoutGatewaySchema, checkoutInfoQuery } from '../checkout-info/checkout-info.schemas';
import type { CheckoutController } from '../checkout/checkout.controller';
import {
  checkoutInfoQuerySchema,
  createLinkEmailSchema,
  createTemporaryLinkSchema,
} from '../checkout/checkout.schemas';
import type { HeartbeatController } from '../heartbeat/heartbeat.controller';
import { pollingQuerySchema } from '../http/request.schemas';
import type { HostedCheckoutController } from '../hosted-checkout/hosted-checkout.controller';
import {
  createPaymentSchema as createLinkPaymentSchema,
  paymentQuerySchema as linkPaymentQuerySchema,
} from '../hosted-checkout/link-payments.service';
import type { MeController } from '../merchants/me.controller';
import type { MetricsController } from '../metrics/metrics.controller';
import type { ProcessorCallbacksController } from '../processor-callbacks/processor-callbacks.controller';
import type { RefundsController } from '../refunds/refunds.controller';
import { createRefundSchema, updateRefundSchema } from '../refunds/refund.schemas';
import type { StoresController } from '../stores/stores.controller';
import { customerIdRequest, listFilters, storeCreation, storeUpdate } from '../stores/store.schemas';
import type { SubscriptionsController } from '../subscriptions/subscriptions.controller';
import {
  createBatchSchema,
  createSubscriptionSchema,
  listSubscriptionsSchema,
  simulatePlanSchema,
  suspendSchema,
  updateScheduledPaymentSchema,
  updateSubscriptionSchema,
  updateTokenSchema as updateSubscriptionTokenSchema,
} from '../subscriptions/subscription.schemas';
import type { TestClocksController } from '../test-clocks/test-clocks.controller';
import { advanceTestClockSchema, createTestClockSchema } from '../test-clocks/test-clock.schemas';
import type { TransactionHistoryController } from '../transaction-history/transaction-history.controller';
import { listTransactionHistorySchema } from '../transaction-history/transaction-history.schemas';
import type { TransactionTokensController } from '../transaction-tokens/transaction-tokens.controller';
import type { TokenAliasesController } from '../transaction-tokens/token-aliases.controller';
import type { CustomerLoginsController } from '../accounts/customer-logins.controller';
import { createTokenAliasSchema, tokenAliasQuerySchema } from '../transaction-tokens/token-alias.schemas';
import {
  confirmTokenSchema,
  createTokenSchema,
  listFiltersSchema,
  renewTokenSchema,
  updateTokenSchema,
} from '../transaction-tokens/transaction-token.schemas';
import type { BankAccountsController } from '../bank-accounts/bank-accounts.controller';
import type { LedgersController, TransfersController } from '../transfers/transfers.controller';
import { listLedgersSchema, listTransfersSchema } from '../transfers/transfer.schemas';
import {
  createBankAccountSchema,
  listBankAccountsSchema,
  primaryBankAccountSchema,
  updateBankAccountSchema,
} from '../bank-accounts/bank-account.schemas';
import type { ExchangeRatesController } from '../exchange-rates/exchange-rates.controller';
import { calculateExchangeRateSchema } from '../exchange-rates/exchange-rate.schemas';
import type { VerificationController } from '../verification/verification.controller';
import { createVerificationSchema, updateVerificationSchema } from '../verification/verification.schemas';
import type { WebhooksController } from '../webhooks/webhooks.controller';
import { createWebhookSchema, updateWebhookSchema } from '../webhooks/webhook.schemas';
import type { OpenApiController } from './openapi.controller';
import type { ResponseName } from './response-schemas';

/** What a route answers with on success; the status is the route's own (@HttpCode, or Nest's default). */
export type Answer =
  | ResponseName
  | { page: ResponseName; totalHits?: true }
  | { array: ResponseName }
  | { content: string; description: string };

/**
 * What the code alone does not say of a route: its summary, the zod schemas its handler parses the
 * query and body with (the very ones it uses), and what it answers. The method, path, status code
 * and who may call it are read from the controller's own decorators (openapi-document.ts).
 */
export interface OperationDoc {
  summary: string;
  description?: string;
  /** the univapay-node SDK call that sends this request, when there is one */
  sdk?: string;
  query?: ZodTypeAny;
  /** limit, cursor and cursor_direction (parsePageRequest) */
  paged?: true;
  body?: ZodTypeAny;
  /** the JSON body is optional (an absent or empty body reads as `{}`) */
  optionalBody?: true;
  /** the body may also come as multipart/form-data, as the SDK sends one holding a file (http/form-body.ts) */
  form?: true;
  /** absent: no body (204, 202) */
  ok?: Answer;
  /** statuses a page (HTML, script, style) answers with a body of its own instead of the error envelope */
  refusals?: { statuses: number[]; content: string; description: string };
}

type Handlers<C> = {
  [K in keyof C as C[K] extends (...args: never[]) => unknown ? K : never]: OperationDoc;
};

/** One controller's operations: every handler must have one (the compiler checks it), none more. */
export interface ControllerDocs<C> {
  tag: string;
  operations: Handlers<C>;
}

const polling = pollingQuerySchema;
const page = (name: ResponseName): Answer => ({ page: name, totalHits: true });

const charges: ControllerDocs<ChargesController> = {
  tag: 'Charges',
  operations: {
    create: {
      summary: 'Create a charge',
      description:
        'The store is the app token’s. Answers 201 with the charge, usually `pending`; poll GET ' +
        '…/charges/{id}?polling=true for its outcome.',
      sdk: 'charges.create',
      body: createChargeSchema,
      ok: 'Charge',
    },
    list: {
      summary: 'List charges',
      sdk: 'charges.list',
      query: listChargesSchema,
      paged: true,
      ok: { page: 'ChargeListItem', totalHits: true },
    },
    listForStore: {
      summary: 'List a store’s charges',
      sdk: 'charges.list',
      query: listChargesSchema,
      paged: true,
      ok: { page: 'ChargeListItem', totalHits: true },
    },
    get: { summary: 'Get a charge', query: polling, ok: 'Charge' },
    getInStore: {
      summary: 'Get a store’s charge',
      description: '`polling=true` waits (bounded) until the charge leaves `pending`.',
      sdk: 'charges.get / charges.poll',
      query: polling,
      ok: 'Charge',
    },
    update: {
      summary: 'Change a charge’s metadata',
      sdk: 'charges.update',
      body: updateChargeSchema,
      ok: 'Charge',
    },
    capture: {
      summary: 'Capture an authorized charge',
      sdk: 'charges.capture',
      body: captureSchema,
      ok: 'Capture',
    },
    issuerToken: {
      summary: 'Where the customer pays an online or QR charge',
      sdk: 'charges.issuerToken',
      ok: 'IssuerToken',
    },
    expiry: {
      summary: 'A bank-transfer or konbini charge’s payment deadline',
      sdk: 'charges.expiry',
      ok: 'ChargeExpiry',
    },
    extendExpiry: {
      summary: 'Extend a bank-transfer or konbini charge’s payment deadline',
      body: extendExpirySchema,
      optionalBody: true,
      ok: 'ChargeExpiry',
    },
    bankTransferLedgers: {
      summary: 'A bank-transfer charge’s virtual-account ledger',
      description:
        'Oldest first: one `payment` entry (the amount asked for), then one `deposit` per transfer ' +
        'received, each with the balance after it. The whole list in one page. A charge that is no ' +
        'bank transfer (konbini included) answers 404.',
      ok: page('BankTransferLedger'),
    },
    threeDsIssuerToken: {
      summary: 'The issuer page of a charge’s 3-D Secure',
      sdk: 'charges.threeDsIssuerToken',
      ok: 'ThreeDsIssuerToken',
    },
  },
};

const refunds: ControllerDocs<RefundsController> = {
  tag: 'Refunds',
  operations: {
    create: { summary: 'Refund a charge', sdk: 'refunds.create', body: createRefundSchema, ok: 'Refund' },
    list: { summary: 'List a charge’s refunds', sdk: 'refunds.list', paged: true, ok: page('Refund') },
    get: { summary: 'Get a refund', sdk: 'refunds.get / refunds.poll', query: polling, ok: 'Refund' },
    update: { summary: 'Change a refund', sdk: 'refunds.update', body: updateRefundSchema, ok: 'Refund' },
  },
};

const cancels: ControllerDocs<CancelsController> = {
  tag: 'Cancels',
  operations: {
    create: {
      summary: 'Cancel (void) a charge',
      sdk: 'cancels.create',
      body: createCancelSchema,
      optionalBody: true,
      ok: 'Cancel',
    },
    list: { summary: 'List a charge’s cancels', sdk: 'cancels.list', paged: true, ok: { page: 'Cancel' } },
    get: { summary: 'Get a cancel', sdk: 'cancels.get / cancels.poll', query: polling, ok: 'Cancel' },
    update: {
      summary: 'Change a cancel’s metadata',
      sdk: 'cancels.update',
      body: updateCancelSchema,
      ok: 'Cancel',
    },
  },
};

const tokens: ControllerDocs<TransactionTokensController> = {
  tag: 'Transaction tokens',
  operations: {
    create: {
      summary: 'Create a transaction token',
      description: 'Also callable with a secret-less app token from an Origin in its domains (the checkout).',
      sdk: 'transactionTokens.create',
      body: createTokenSchema,
      ok: 'TransactionToken',
    },
    list: {
      summary: 'List transaction tokens',
      sdk: 'transactionTokens.list',
      query: listFiltersSchema,
      paged: true,
      ok: page('TransactionTokenListItem'),
    },
    listForStore: {
      summary: 'List a store’s transaction tokens',
      sdk: 'transactionTokens.list',
      query: listFiltersSchema,
      paged: true,
      ok: page('TransactionTokenListItem'),
    },
    get: { summary: 'Get a transaction token', sdk: 'transactionTokens.get', ok: 'TransactionToken' },
    update: {
      summary: 'Change a transaction token',
      sdk: 'transactionTokens.update',
      body: updateTokenSchema,
      ok: 'TransactionToken',
    },
    confirm: {
      summary: 'Confirm a transaction token with its confirmation code',
      sdk: 'transactionTokens.confirm',
      body: confirmTokenSchema,
      ok: 'TransactionToken',
    },
    renewInStore: {
      summary: 'Renew a card token (new expiry, cardholder, billing)',
      sdk: 'transactionTokens.renew',
      body: renewTokenSchema,
      ok: 'TransactionToken',
    },
    renew: {
      summary: 'Renew a card token of the app token’s store',
      sdk: 'transactionTokens.renew',
      body: renewTokenSchema,
      ok: 'TransactionToken',
    },
    threeDsIssuerToken: {
      summary: 'The issuer page of a token’s 3-D Secure',
      sdk: 'transactionTokens.threeDsIssuerToken',
      ok: 'ThreeDsIssuerToken',
    },
    enableThreeDs: {
      summary: 'Start a token’s 3-D Secure (again)',
      sdk: 'transactionTokens.enableThreeDs',
      ok: 'TransactionToken',
    },
    disableThreeDs: {
      summary: 'Switch a token’s 3-D Secure off',
      sdk: 'transactionTokens.disableThreeDs',
      ok: 'TransactionToken',
    },
    delete: { summary: 'Deactivate a transaction token', sdk: 'transactionTokens.delete' },
  },
};

const tokenAliases: ControllerDocs<TokenAliasesController> = {
  tag: 'Temporary token aliases',
  operations: {
    create: {
      summary: 'A temporary alias of a transaction token',
      description:
        'For an active token of the app token’s store and mode: a key valid until `valid_until` (30 ' +
        'minutes unless told, at most 24 hours ahead), with an optional amount and metadata.',
      sdk: 'TemporaryTokenAlias.create',
      body: createTokenAliasSchema,
      ok: 'CreatedTokenAlias',
    },
    get: {
      summary: 'Get a temporary token alias',
      description:
        'While it is valid and not deleted, else 404. Only `media=json`: the QR image is not served. ' +
        'Also callable with a secret-less store token from an Origin in its domains.',
      sdk: 'TemporaryTokenAlias.get',
      query: tokenAliasQuerySchema,
      ok: 'TokenAlias',
    },
    delete: { summary: 'Delete a temporary token alias', sdk: 'TemporaryTokenAlias.delete' },
  },
};

const subscriptions: ControllerDocs<SubscriptionsController> = {
  tag: 'Subscriptions',
  operations: {
    simulatePlan: {
      summary: 'The payments a subscription would make',
      sdk: 'subscriptions.simulation',
      body: simulatePlanSchema,
      ok: { array: 'PlannedPayment' },
    },
    simulatePlanInStore: {
      summary: 'The payments a subscription of the store would make',
      sdk: 'subscriptions.simulation',
      body: simulatePlanSchema,
      ok: { array: 'PlannedPayment' },
    },
    create: {
      summary: 'Create a subscription',
      sdk: 'subscriptions.create',
      body: createSubscriptionSchema,
      ok: 'Subscription',
    },
    createBatch: {
      summary: 'Create up to ten subscriptions and a charge, all or nothing',
      description:
        'Each item of `subscriptions` is a POST /subscriptions body, of `charges` a POST /charges body.',
      body: createBatchSchema,
      ok: 'SubscriptionBatch',
    },
    getBatch: { summary: 'Get a batch', query: polling, ok: 'SubscriptionBatch' },
    list: {
      summary: 'List subscriptions',
      sdk: 'subscriptions.list',
      query: listSubscriptionsSchema,
      paged: true,
      ok: page('SubscriptionListItem'),
    },
    listInStore: {
      summary: 'List a store’s subscriptions',
      sdk: 'subscriptions.list',
      query: listSubscriptionsSchema,
      paged: true,
      ok: page('SubscriptionListItem'),
    },
    get: {
      summary: 'Get a subscription',
      sdk: 'subscriptions.get / subscriptions.poll',
      query: polling,
      ok: 'Subscription',
    },
    update: {
      summary: 'Change a subscription',
      sdk: 'subscriptions.update',
      body: updateSubscriptionSchema,
      ok: 'Subscription',
    },
    cancel: { summary: 'Cancel a subscription', sdk: 'subscriptions.cancel' },
    suspend: {
      summary: 'Suspend a subscription',
      sdk: 'subscriptions.suspend',
      body: suspendSchema,
      optionalBody: true,
      ok: 'Subscription',
    },
    suspendInStore: {
      summary: 'Suspend a store’s subscription',
      sdk: 'subscriptions.suspend',
      body: suspendSchema,
      optionalBody: true,
      ok: 'Subscription',
    },
    unsuspend: {
      summary: 'Resume a suspended subscription',
      sdk: 'subscriptions.unsuspend',
      body: suspendSchema,
      optionalBody: true,
      ok: 'Subscription',
    },
    unsuspendInStore: {
      summary: 'Resume a store’s suspended subscription',
      sdk: 'subscriptions.unsuspend',
      body: suspendSchema,
      optionalBody: true,
      ok: 'Subscription',
    },
    updateToken: {
      summary: 'Charge a subscription to another transaction token',
      sdk: 'subscriptions.updateToken',
      body: updateSubscriptionTokenSchema,
      ok: 'Subscription',
    },
    updateTokenInStore: {
      summary: 'Charge a store’s subscription to another transaction token',
      sdk: 'subscriptions.updateToken',
      body: updateSubscriptionTokenSchema,
      ok: 'Subscription',
    },
    listCharges: {
      summary: 'List a subscription’s charges',
      sdk: 'subscriptions.charges',
      query: listChargesSchema,
      paged: true,
      ok: page('ChargeListItem'),
    },
    latestCharge: {
      summary: 'A subscription’s latest charge',
      sdk: 'subscriptions.latestCharge',
      ok: 'Charge',
    },
    listPayments: {
      summary: 'List a subscription’s scheduled payments',
      sdk: 'subscriptions.payments.list',
      paged: true,
      ok: page('ScheduledPayment'),
    },
    getPayment: {
      summary: 'Get a scheduled payment',
      sdk: 'subscriptions.payments.get',
      ok: 'ScheduledPayment',
    },
    updatePayment: {
      summary: 'Change a pending scheduled payment’s due date or amount',
      sdk: 'subscriptions.payments.update',
      body: updateScheduledPaymentSchema,
      ok: 'ScheduledPayment',
    },
    listPaymentCharges: {
      summary: 'List a scheduled payment’s charges',
      sdk: 'subscriptions.payments.listCharges',
      query: listChargesSchema,
      paged: true,
      ok: page('ChargeListItem'),
    },
  },
};

const testClocks: ControllerDocs<TestClocksController> = {
  tag: 'Test clocks',
  operations: {
    create: { summary: 'Create a test clock', body: createTestClockSchema, ok: 'TestClock' },
    list: { summary: 'List test clocks', paged: true, ok: page('TestClock') },
    get: { summary: 'Get a test clock', ok: 'TestClock' },
    advance: { summary: 'Move a test clock forward', body: advanceTestClockSchema, ok: 'TestClock' },
    delete: { summary: 'Delete a test clock and cancel its subscriptions' },
  },
};

const history: ControllerDocs<TransactionHistoryController> = {
  tag: 'Transaction history',
  operations: {
    list: {
      summary: 'List charges and refunds',
      sdk: 'transactionHistory.list',
      query: listTransactionHistorySchema,
      paged: true,
      ok: { page: 'Transaction' },
    },
    listForStore: {
      summary: 'List a store’s charges and refunds',
      sdk: 'transactionHistory.list',
      query: listTransactionHistorySchema,
      paged: true,
      ok: { page: 'Transaction' },
    },
  },
};

const webhooks: ControllerDocs<WebhooksController> = {
  tag: 'Webhooks',
  operations: {
    createMerchantWebhook: {
      summary: 'Create a merchant webhook',
      sdk: 'webHooks.create',
      body: createWebhookSchema,
      ok: 'CreatedWebhook',
    },
    listMerchantWebhooks: {
      summary: 'List the merchant’s webhooks',
      sdk: 'webHooks.list',
      paged: true,
      ok: { page: 'WebhookListItem' },
    },
    getMerchantWebhook: { summary: 'Get a merchant webhook', sdk: 'webHooks.get', ok: 'Webhook' },
    listMerchantWebhookDeliveries: {
      summary: 'A merchant webhook’s deliveries',
      paged: true,
      ok: { page: 'WebhookDelivery' },
    },
    replayMerchantWebhookDelivery: {
      summary: 'Deliver a merchant webhook’s event again',
      ok: 'WebhookDelivery',
    },
    rotateMerchantWebhookSecret: {
      summary: 'Rotate a merchant webhook’s signing secret',
      ok: 'CreatedWebhook',
    },
    updateMerchantWebhook: {
      summary: 'Change a merchant webhook',
      sdk: 'webHooks.update',
      body: updateWebhookSchema,
      ok: 'Webhook',
    },
    deleteMerchantWebhook: { summary: 'Delete a merchant webhook', sdk: 'webHooks.delete' },
    createStoreWebhook: {
      summary: 'Create a store webhook',
      sdk: 'webHooks.create',
      body: createWebhookSchema,
      ok: 'CreatedWebhook',
    },
    listStoreWebhooks: {
      summary: 'List a store’s webhooks',
      sdk: 'webHooks.list',
      paged: true,
      ok: { page: 'WebhookListItem' },
    },
    getStoreWebhook: { summary: 'Get a store webhook', sdk: 'webHooks.get', ok: 'Webhook' },
    listStoreWebhookDeliveries: {
      summary: 'A store webhook’s deliveries',
      paged: true,
      ok: { page: 'WebhookDelivery' },
    },
    replayStoreWebhookDelivery: { summary: 'Deliver a store webhook’s event again', ok: 'WebhookDelivery' },
    rotateStoreWebhookSecret: { summary: 'Rotate a store webhook’s signing secret', ok: 'CreatedWebhook' },
    updateStoreWebhook: {
      summary: 'Change a store webhook',
      sdk: 'webHooks.update',
      body: updateWebhookSchema,
      ok: 'Webhook',
    },
    deleteStoreWebhook: { summary: 'Delete a store webhook', sdk: 'webHooks.delete' },
  },
};

const bankAccounts: ControllerDocs<BankAccountsController> = {
  tag: 'Bank accounts',
  operations: {
    create: {
      summary: 'Add a bank account',
      description:
        'Where the merchant’s payouts of its currency go, in the credential’s mode. The first account ' +
        'of a currency is its primary; `primary: true` moves the primary to the new one. A test-mode ' +
        'account is `verified` at once, a live one `new` until the operator verifies it.',
      sdk: 'bankAccounts.create',
      body: createBankAccountSchema,
      ok: 'BankAccount',
    },
    list: {
      summary: 'List the merchant’s bank accounts',
      sdk: 'bankAccounts.list',
      query: listBankAccountsSchema,
      paged: true,
      ok: { page: 'BankAccount' },
    },
    getPrimary: {
      summary: 'The primary bank account',
      description:
        'Of `currency` when given (Kessai’s own parameter), else the only primary; 404 ' +
        'PRIMARY_BANK_ACCOUNT_NOT_FOUND when there is none.',
      sdk: 'bankAccounts.getPrimary',
      query: primaryBankAccountSchema,
      ok: 'BankAccount',
    },
    get: { summary: 'Get a bank account', sdk: 'bankAccounts.get', ok: 'BankAccount' },
    update: {
      summary: 'Change a bank account',
      description:
        'A new number or bank is verified again. `primary: false` on the primary is 400 ' +
        'MUST_HAVE_A_PRIMARY_BANK_ACCOUNT: make another account primary instead.',
      sdk: 'bankAccounts.update',
      body: updateBankAccountSchema,
      ok: 'BankAccount',
    },
    delete: {
      summary: 'Delete a bank account',
      description: 'The primary goes only as its currency’s last account (MUST_HAVE_A_PRIMARY_BANK_ACCOUNT).',
      sdk: 'bankAccounts.delete',
    },
  },
};

const transfers: ControllerDocs<TransfersController> = {
  tag: 'Transfers',
  operations: {
    list: {
      summary: 'List the merchant’s transfers',
      description:
        'Payouts of the merchant’s available balance, one per currency and payout day of its ' +
        '`transfer_schedule`, in the credential’s mode; merchant credentials only.',
      sdk: 'transfers.list',
      query: listTransfersSchema,
      paged: true,
      ok: { page: 'TransferListItem' },
    },
    get: { summary: 'Get a transfer', sdk: 'transfers.get', ok: 'Transfer' },
    statusChanges: {
      summary: 'A transfer’s status changes',
      description:
        'Every change, oldest to newest with `cursor_direction=asc`: created → approved → processing → paid | failed, or canceled.',
      sdk: 'transfers.statusChanges',
      paged: true,
      ok: { page: 'TransferStatusChange' },
    },
    ledgers: {
      summary: 'The ledgers a transfer pays',
      description:
        'The sales, refunds and adjustments it covers; `min` and `max` bound the stored amount (a sale’s gross).',
      sdk: 'ledgers.list',
      query: listLedgersSchema,
      paged: true,
      ok: { page: 'Ledger' },
    },
  },
};

const ledgers: ControllerDocs<LedgersController> = {
  tag: 'Ledgers',
  operations: {
    get: { summary: 'Get a ledger', sdk: 'ledgers.get', ok: 'Ledger' },
  },
};

const stores: ControllerDocs<StoresController> = {
  tag: 'Stores',
  operations: {
    create: { summary: 'Create a store', sdk: 'stores.create', body: storeCreation, form: true, ok: 'Store' },
    delete: { summary: 'Deactivate a store and revoke its app tokens', sdk: 'stores.delete' },
    list: {
      summary: 'List stores',
      sdk: 'stores.list',
      query: listFilters,
      paged: true,
      ok: { page: 'StoreListItem' },
    },
    get: { summary: 'Get a store', sdk: 'stores.get', ok: 'Store' },
    update: {
      summary: 'Change a store’s name, configuration or logo',
      sdk: 'stores.update',
      body: storeUpdate,
      form: true,
      ok: 'Store',
    },
    createCustomerId: {
      summary: 'The customer UUID of a merchant’s own customer id',
      sdk: 'stores.getCustomerId',
      body: customerIdRequest,
      ok: 'CustomerId',
    },
  },
};

const appJwts: ControllerDocs<AppJwtsController> = {
  tag: 'App tokens',
  operations: {
    createMerchantToken: {
      summary: 'Issue a merchant app token',
      body: createAppJwtSchema,
      ok: 'IssuedAppJwt',
    },
    listMerchantTokens: { summary: 'List the merchant’s app tokens', paged: true, ok: { page: 'AppJwt' } },
    getMerchantToken: { summary: 'Get a merchant app token', ok: 'AppJwt' },
    revokeMerchantToken: { summary: 'Revoke a merchant app token' },
    createStoreToken: { summary: 'Issue a store app token', body: createAppJwtSchema, ok: 'IssuedAppJwt' },
    listStoreTokens: { summary: 'List a store’s app tokens', paged: true, ok: { page: 'AppJwt' } },
    getStoreToken: { summary: 'Get a store app token', ok: 'AppJwt' },
    revokeStoreToken: { summary: 'Revoke a store app token' },
  },
};

const login: ControllerDocs<LoginController> = {
  tag: 'Merchant users',
  operations: {
    authenticate: { summary: 'Sign in for a login token', body: credentials, ok: 'LoginToken' },
    logout: { summary: 'End the calling login session' },
  },
};

const passwordResets: ControllerDocs<PasswordResetsController> = {
  tag: 'Merchant users',
  operations: {
    request: {
      summary: 'Ask for a password reset',
      description:
        "202 whether or not the address has an account and whatever its merchant's daily quota, " +
        'answered before the request is carried out; the token is delivered out of band.',
      body: resetRequest,
      ok: 'Empty',
    },
    confirm: { summary: 'Set a new password with a reset token', body: resetConfirmation },
  },
};

const customerLoginDescription =
  '`{email}` (refers.sendCode) mails a six-digit code to a customer of the store (an address it has a ' +
  'token for) and answers `{}` whoever the address is; `{email, otp}` (refers.authorize) trades the ' +
  'code for a customer token `{jwt}` (30 minutes) that may change the card of, or cancel, that ' +
  'customer’s own subscriptions and nothing else. A code lives 10 minutes and 5 tries (400 ' +
  'WRONG_CONFIRMATION_CODE, then EXPIRED_OTP_TOKEN). Also callable with the store’s secret-less ' +
  'token from an Origin in its domains; each customer throttled as POST /authenticate.';

const customerLogins: ControllerDocs<CustomerLoginsController> = {
  tag: 'Customers',
  operations: {
    authenticate: {
      summary: 'A store customer’s login code, or its customer token (the app token’s store)',
      description: customerLoginDescription,
      sdk: 'refers.sendCode, refers.authorize',
      body: customerAuthenticationSchema,
      ok: 'CustomerAuthentication',
    },
    authenticateInStore: {
      summary: 'A store customer’s login code, or its customer token',
      description: customerLoginDescription,
      sdk: 'refers.sendCode, refers.authorize',
      body: customerAuthenticationSchema,
      ok: 'CustomerAuthentication',
    },
  },
};

const me: ControllerDocs<MeController> = {
  tag: 'Merchants',
  operations: { me: { summary: 'The calling merchant', sdk: 'merchants.me', ok: 'Merchant' } },
};

const verification: ControllerDocs<VerificationController> = {
  tag: 'Merchants',
  operations: {
    get: {
      summary: 'The merchant’s verification',
      description:
        'Its onboarding data and the operator’s review (`status`: submitted, approved, rejected); 404 ' +
        'before it was sent. Answered to a live token before the merchant is verified.',
      sdk: 'verification.get',
      ok: 'Verification',
    },
    create: {
      summary: 'Send the merchant’s verification',
      description:
        'One per merchant (409 VERIFICATION_DATA_EXISTS after that: change it with PATCH), for the ' +
        'operator’s review. Its approval makes the merchant verified: until then, live mode answers ' +
        '400 LIVE_MODE_NOT_ENABLED_WHEN_UNVERIFIED.',
      sdk: 'verification.create',
      body: createVerificationSchema,
      ok: 'Verification',
    },
    update: {
      summary: 'Change the merchant’s verification',
      description:
        'The fields given (the contact info’s keys given replace the stored ones); the data is ' +
        '`submitted` for review again, the merchant staying as verified as it was.',
      sdk: 'verification.update',
      body: updateVerificationSchema,
      ok: 'Verification',
    },
  },
};

const exchangeRates: ControllerDocs<ExchangeRatesController> = {
  tag: 'Exchange rates',
  operations: {
    calculate: {
      summary: 'An amount in another currency, at the operator’s rate',
      description:
        'Minor units of `currency` into `to` at the rate the operator set for the pair (not a market ' +
        'feed), rounded half up; the same currency answers the amount. A pair without a rate is 400 ' +
        'UNSUPPORTED_CURRENCY.',
      sdk: 'exchangeRates.calculate',
      body: calculateExchangeRateSchema,
      ok: 'ExchangeRate',
    },
  },
};

const checkoutInfo: ControllerDocs<CheckoutInfoController> = {
  tag: 'Checkout',
  operations: {
    get: {
      summary: 'What the app token’s store accepts',
      description: 'Also callable with a secret-less app token from an Origin in its domains.',
      sdk: 'checkoutInfo.get',
      query: checkoutInfoQuery,
      ok: 'CheckoutInfo',
    },
    gateway: {
      summary: 'The wallets behind an online gateway brand (Alipay+)',
      description:
        '`alipay_plus_online` in test mode: the Alipay+ wallets, each an online brand a token may ' +
        'name. Live mode, `we_chat_online` (its in-browser `app_id`/`open_id`) and every other brand: ' +
        '400 NOT_SUPPORTED_BY_PROCESSOR. Also callable with a secret-less app token from an Origin in its domains.',
      sdk: 'checkoutInfo.gateway',
      body: checkoutGatewaySchema,
      ok: 'CheckoutGateway',
    },
  },
};

const browserAllowed =
  'Also callable with a secret-less store token from an Origin in its domains (the widget).';
const secretOnly = 'A secret-bearing app token only.';

const checkout: ControllerDocs<CheckoutController> = {
  tag: 'Checkout',
  operations: {
    getForm: {
      summary: 'Get a checkout form design',
      description: browserAllowed,
      sdk: 'ecForms.get',
      ok: 'CheckoutForm',
    },
    createTemporaryLink: {
      summary: 'Create a checkout link',
      description:
        `${secretOnly} The form must be the store’s, of the app token’s mode; \`products\` ` +
        '(Kessai’s) names what the link sells, and `amount` must then be their total. Answers 201 with the ' +
        'link, its `jwt` and `secret` included (docs/hosted-checkout.md).',
      sdk: 'ecFormLinks.createTemporary',
      body: createTemporaryLinkSchema,
      ok: 'CheckoutLink',
    },
    getLink: {
      summary: 'Get a checkout link',
      description: `${secretOnly} The link carries its secret.`,
      sdk: 'ecFormLinks.get',
      ok: 'CheckoutLink',
    },
    listLinkProducts: {
      summary: 'What a checkout link sells',
      description: `${browserAllowed} One page holds them all (a link sells at most 50).`,
      sdk: 'ecLinksProducts.list',
      ok: { page: 'CheckoutLinkProduct' },
    },
    createEmail: {
      summary: 'Record a checkout link to be sent to a customer by email',
      description: `${secretOnly} Kessai’s: nothing sends it yet, it stays \`pending\` (docs/hosted-checkout.md).`,
      body: createLinkEmailSchema,
      ok: 'CheckoutEmail',
    },
    getInfo: {
      summary: 'What the hosted form shows for a checkout link',
      description:
        'No app token: the link’s `secret` in the query is the credential (a wrong one answers 404, as a ' +
        'missing link does). A disabled or expired link answers 400 NOT_ACTIVE.',
      sdk: 'ecInfo.get',
      query: checkoutInfoQuerySchema,
      ok: 'CheckoutLinkInfo',
    },
    getEmail: {
      summary: 'Get a checkout email',
      description: secretOnly,
      sdk: 'emails.get',
      ok: 'CheckoutEmail',
    },
    getProductByCode: {
      summary: 'Get a checkout product by its code',
      description: browserAllowed,
      sdk: 'products.getByCode',
      ok: 'CheckoutProduct',
    },
    getProduct: {
      summary: 'Get a checkout product',
      description: browserAllowed,
      sdk: 'products.get',
      ok: 'CheckoutProduct',
    },
  },
};

const hostedPage = (description: string): Answer => ({ content: 'text/html', description });
const linkCredentials =
  'The link’s own credentials only (`Bearer <link secret>.<link jwt>`, which the link page carries), ' +
  'from the gateway’s own Origin; another link’s id answers 404.';

const hostedCheckout: ControllerDocs<HostedCheckoutController> = {
  tag: 'Hosted checkout',
  operations: {
    linkPage: {
      summary: 'A checkout link’s payment page',
      description:
        'Open: the link’s `secret` in the query is the credential. Shows what the link’s row says ' +
        '(store, amount, currency); `lang` (en, ja) picks the language, else the form’s locale or ' +
        'Accept-Language. Under a strict Content-Security-Policy (docs/hosted-checkout.md).',
      ok: hostedPage('the page (HTML)'),
      refusals: {
        statuses: [400, 404, 410],
        content: 'text/html',
        description:
          'a page saying why: 404 an unknown link or a wrong secret, 400 a URL carrying a key the link ' +
          'fixes (amount, currency, …), 410 a disabled or expired link',
      },
    },
    framePage: {
      summary: 'The widget’s and inline form’s frame',
      description:
        'Open: `app_id`, a store app token’s jwt, names the store; framable only by that token’s ' +
        'domains (frame-ancestors). Query: `app_id`, `token_type` (one_time, recurring, subscription), ' +
        '`lang`, `display` (inline, overlay); nothing else.',
      ok: hostedPage('the frame’s page (HTML)'),
      refusals: {
        statuses: [400, 401, 403],
        content: 'text/html',
        description:
          'a page saying why: 401 no valid store app token, 400 an unknown query key or token_type, 403 ' +
          'a token without domains',
      },
    },
    widget: {
      summary: 'The checkout widget script',
      description: 'Loaded by merchants’ pages (Cross-Origin-Resource-Policy: cross-origin).',
      ok: { content: 'text/javascript', description: 'widget.js' },
    },
    asset: {
      summary: 'A script or style sheet of the hosted pages',
      description: 'checkout.js, checkout.css or widget.js.',
      ok: { content: 'application/octet-stream', description: 'a script or style sheet' },
      refusals: { statuses: [404], content: 'text/plain', description: 'no such file' },
    },
    logo: {
      summary: 'A store’s checkout logo',
      description:
        'Open: the URL GET /checkout_info gives as `logo_image`, naming the image’s SHA-256 digest, so a ' +
        'new logo is a new URL. PNG, JPEG or WebP as its magic bytes said, `X-Content-Type-Options: ' +
        'nosniff`, cached for a year (immutable).',
      ok: {
        content: 'application/octet-stream',
        description: 'the image (image/png, image/jpeg or image/webp)',
      },
      refusals: {
        statuses: [404],
        content: 'text/plain',
        description: 'no such store or logo, an older digest, or a deleted store',
      },
    },
    createPayment: {
      summary: 'Pay a checkout link with a token its page made',
      description:
        `${linkCredentials} Makes the link’s one charge, or its subscription for a subscription link, ` +
        'with everything but the token from the link’s row; a second payment answers 400 ' +
        'TRANSACTION_ALREADY_PROCESSED, a token-only link 403; a bank transfer or konbini token ' +
        'needs an email (its instructions are mailed, in `lang`) and a form that offers it.',
      body: createLinkPaymentSchema,
      ok: 'LinkPayment',
    },
    getPayment: {
      summary: 'The link page’s payment: pending, its outcome, or where to go next',
      description:
        `${linkCredentials} \`kind\` is charge or subscription; only a payment of this link. An ` +
        'awaiting bank transfer or konbini charge answers its payment instructions, in `lang`.',
      query: linkPaymentQuerySchema,
      ok: 'LinkPayment',
    },
  },
};

const heartbeat: ControllerDocs<HeartbeatController> = {
  tag: 'Operations',
  operations: { heartbeat: { summary: 'Liveness of the gateway', sdk: 'ping', ok: 'Heartbeat' } },
};

const metrics: ControllerDocs<MetricsController> = {
  tag: 'Operations',
  operations: {
    metrics: {
      summary: 'Prometheus metrics',
      description: '`Authorization: Bearer <METRICS_TOKEN>` when METRICS_TOKEN is set (docs/operations.md).',
      ok: { content: 'text/plain', description: 'Prometheus text exposition format' },
    },
  },
};

const processorCallbacks: ControllerDocs<ProcessorCallbacksController> = {
  tag: 'Processor',
  operations: {
    receive: {
      summary: 'A signed notice from the payment processor',
      description: 'The X-Processor-Signature header over the raw body is the credential.',
      body: processorCallbackWireSchema,
    },
    receiveKomoju: {
      summary: 'A KOMOJU webhook delivery',
      description:
        'The X-Komoju-Signature header (hex HMAC-SHA256 of the raw body, KOMOJU_WEBHOOK_SECRET) is the ' +
        'credential (docs/connectors.md).',
      body: komojuEventSchema,
    },
    receiveKomojuOfAccount: {
      summary: 'A KOMOJU webhook delivery of one processor account',
      description:
        'The X-Komoju-Signature header (hex HMAC-SHA256 of the raw body, keyed with the webhook secret of ' +
        'the processor account the path names) is the credential; a path naming no KOMOJU account answers ' +
        '401 (docs/connectors.md, "Processor accounts and routing").',
      body: komojuEventSchema,
    },
    receiveStripe: {
      summary: 'A Stripe webhook delivery',
      description:
        'The Stripe-Signature header (t=…,v1=hex HMAC-SHA256 of "t.body", STRIPE_WEBHOOK_SECRET), checked by ' +
        "stripe-node's webhooks.constructEvent, is the credential (docs/connectors.md).",
      body: stripeEventSchema,
    },
    receiveStripeOfAccount: {
      summary: 'A Stripe webhook delivery of one processor account',
      description:
        'The Stripe-Signature header, checked with the signing secret of the processor account the path ' +
        'names, is the credential; a path naming no Stripe account answers 401 (docs/connectors.md, ' +
        '"Processor accounts and routing").',
      body: stripeEventSchema,
    },
    threeDsReturn: {
      summary: "The customer's return from 3-D Secure at KOMOJU or Stripe",
      description:
        'Where the processor sends the browser after authenticating: nudges the awaiting charge to be looked ' +
        'up at the processor, then answers 303 to the charge’s three_ds.redirect_endpoint, or a short page ' +
        'when it names none (docs/connectors.md, "3-D Secure").',
      ok: { content: 'text/html', description: 'a page, or 303 to the redirect endpoint' },
    },
  },
};

const openApi: ControllerDocs<OpenApiController> = {
  tag: 'Operations',
  operations: {
    document: {
      summary: 'This document',
      ok: { content: 'application/json', description: 'the OpenAPI 3.1 document of the gateway' },
    },
    page: { summary: 'The API reference page', ok: { content: 'text/html', description: 'an HTML page' } },
    asset: {
      summary: 'A file of the API reference page',
      ok: { content: 'application/octet-stream', description: 'a script or style sheet' },
    },
  },
};

/** The documentation of every controller's handlers, by controller class name. */
export const CONTROLLER_DOCS: Record<string, { tag: string; operations: Record<string, OperationDoc> }> = {
  ChargesController: charges,
  RefundsController: refunds,
  CancelsController: cancels,
  TransactionTokensController: tokens,
  TokenAliasesController: tokenAliases,
  SubscriptionsController: subscriptions,
  TestClocksController: testClocks,
  TransactionHistoryController: history,
  WebhooksController: webhooks,
  BankAccountsController: bankAccounts,
  TransfersController: transfers,
  LedgersController: ledgers,
  StoresController: stores,
  AppJwtsController: appJwts,
  LoginController: login,
  PasswordResetsController: passwordResets,
  CustomerLoginsController: customerLogins,
  MeController: me,
  VerificationController: verification,
  ExchangeRatesController: exchangeRates,
  CheckoutInfoController: checkoutInfo,
  CheckoutController: checkout,
  HostedCheckoutController: hostedCheckout,
  HeartbeatController: heartbeat,
  MetricsController: metrics,
  ProcessorCallbacksController: processorCallbacks,
  OpenApiController: openApi,
};
