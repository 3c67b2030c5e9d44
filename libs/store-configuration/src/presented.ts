import { CUSTOMER_ROLES } from '@kessai/auth';
import type { StoreConfiguration } from './configuration';

/**
 * The facts behind the configuration keys the SDK requires that are not settings of a store:
 * whether the merchant may send card data with its secret (PCI DSS, `allow_direct_token_creation`).
 */
export interface ConfigurationFacts {
  directCardTokens: boolean;
}

/**
 * A configuration as the API shows it (on /me and stores): every key Kessai honours, plus the blocks
 * and nested keys univapay-node's `ConfigurationItem` requires, each with the value Kessai actually
 * applies — never an invented setting (issue 30, gap 2; docs/configuration.md, "Shown, not set"):
 * - card: debit and prepaid cards are charged and authorized as any card; foreign cards and any
 *   buyer's IP are accepted; a new email never fails a payment; a CVV is always required; any
 *   currency the processor takes is charged (no direct-currency rule of the store's); direct card
 *   tokens as the merchant's PCI DSS status allows;
 * - bank transfer: Kessai sends the buyer no email of its own, so every notification is off;
 * - security: refunds are bounded by the charged amount, 100 % (decision 0007);
 * - installments: the setting, and only_with_processor false (Kessai schedules the installments
 *   itself) (Paidy and merchant-presented QR are settings); the hosted checkout's email and
 *   product links: on;
 * - transfer_schedule: its `wait_period`, which the SDK's TransferScheduleItem requires, is the
 *   configuration's own top-level `wait_period` (docs/ledger.md, "Payout schedule").
 * - bank transfer's virtual accounts: given out one per charge, on demand (no pool is kept), so the
 *   pool's threshold is 0 and its fetch count 1; the reminder's period P0D beside its flag off
 *   (decision 0051).
 * - customer management: the login switch, and as `default_roles` the roles every customer token
 *   carries (no mode: a customer token acts in the mode of the app token that asked, decision 0070).
 */
export function presentConfiguration(config: StoreConfiguration, facts: ConfigurationFacts) {
  return {
    ...config,
    // the SDK's TransferScheduleItem carries the wait period: Kessai's is the top-level wait_period
    transfer_schedule: { ...config.transfer_schedule, wait_period: config.wait_period },
    card_configuration: presentCardConfiguration(config, facts),
    bank_transfer_configuration: presentBankTransferConfiguration(config),
    security_configuration: { refund_percent_limit: 100 },
    installments_configuration: presentInstallmentsConfiguration(config),
    checkout_configuration: { ec_email: { enabled: true }, ec_products: { enabled: true } },
    customer_management_configuration: {
      ...config.customer_management_configuration,
      default_roles: [...CUSTOMER_ROLES],
    },
  };
}

/** card_configuration with the SDK's nested keys (checkout_info shows it too). */
export function presentCardConfiguration(config: StoreConfiguration, facts: ConfigurationFacts) {
  // a store without a limit shows none: no value of the SDK's type says "no limit" (decision 0070)
  const { card_limit: cardLimit, ...card } = config.card_configuration;
  return {
    ...card,
    ...(cardLimit === null ? {} : { card_limit: cardLimit }),
    debit_enabled: true,
    debit_authorization_enabled: true,
    prepaid_enabled: true,
    prepaid_authorization_enabled: true,
    foreign_cards_allowed: true,
    fail_on_new_email: false,
    allowed_countries_by_ip: [] as string[],
    allow_empty_cvv: false,
    only_direct_currency: false,
    allow_direct_token_creation: facts.directCardTokens,
  };
}

/** bank_transfer_configuration with the SDK's notification flags (checkout_info shows it too). */
export function presentBankTransferConfiguration(config: StoreConfiguration) {
  return {
    ...config.bank_transfer_configuration,
    remind_notification_enabled: false,
    charge_request_notification_enabled: false,
    deposit_received_notification_enabled: false,
    deposit_insufficient_notification_enabled: false,
    deposit_exceeded_notification_enabled: false,
    extension_notification_enabled: false,
    remind_notification_period: 'P0D',
    virtual_bank_accounts_threshold: 0,
    virtual_bank_accounts_fetch_count: 1,
  };
}

/** installments_configuration with the SDK's only_with_processor (checkout_info shows it too). */
export function presentInstallmentsConfiguration(config: StoreConfiguration) {
  return { ...config.installments_configuration, only_with_processor: false };
}
