import type { AppConfig } from '@kessai/config';
import { PrismaService } from './prisma.service';
import { AppTokensRepository } from './accounts/app-tokens.repository';
import { DeferredPaymentsRepository } from './charges/deferred-payments.repository';
import { MerchantUsersRepository } from './accounts/merchant-users.repository';
import { MerchantsRepository } from './accounts/merchants.repository';
import { StoresRepository } from './stores/stores.repository';
import { TestClocksRepository } from './subscriptions/test-clocks.repository';
import { CheckoutFormsRepository } from './checkout/checkout-forms.repository';
import { CheckoutProductsRepository } from './checkout/checkout-products.repository';
import { CardVaultRepository } from './tokens/card-vault.repository';
import { StoreLogosRepository } from './stores/store-logos.repository';
import { RefundsRepository } from './refunds-cancels/refunds.repository';
import { ConsoleAuditRepository } from './audit/console-audit.repository';
import { LedgerRepository } from './ledger/ledger.repository';
import { PayoutsRepository } from './payouts/payouts.repository';
import { TransfersRepository } from './payouts/transfers.repository';
import { BankAccountsRepository } from './payouts/bank-accounts.repository';
import { MerchantVerificationsRepository } from './accounts/merchant-verifications.repository';
import { ExchangeRatesRepository } from './exchange-rates/exchange-rates.repository';
import { ProcessorAccountsRepository } from './processors/processor-accounts.repository';
import { WebhooksRepository } from './webhooks/webhooks.repository';

/**
 * The database for a process that runs without Nest (the admin CLI): a connection pool of its own
 * and the repositories the operator's use cases need, over it. `close()` ends the pool.
 */
export class StandaloneDatabase {
  readonly merchants: MerchantsRepository;
  readonly stores: StoresRepository;
  readonly appTokens: AppTokensRepository;
  readonly merchantUsers: MerchantUsersRepository;
  readonly testClocks: TestClocksRepository;
  readonly checkoutForms: CheckoutFormsRepository;
  readonly checkoutProducts: CheckoutProductsRepository;
  readonly cardVault: CardVaultRepository;
  readonly deferredPayments: DeferredPaymentsRepository;
  readonly storeLogos: StoreLogosRepository;
  readonly refunds: RefundsRepository;
  readonly ledger: LedgerRepository;
  readonly bankAccounts: BankAccountsRepository;
  readonly payouts: PayoutsRepository;
  readonly transfers: TransfersRepository;
  readonly verifications: MerchantVerificationsRepository;
  readonly exchangeRates: ExchangeRatesRepository;
  readonly processorAccounts: ProcessorAccountsRepository;
  readonly webhooks: WebhooksRepository;
  private readonly prisma: PrismaService;

  constructor(config: AppConfig) {
    this.prisma = new PrismaService(config);
    this.merchants = new MerchantsRepository(this.prisma);
    const audit = new ConsoleAuditRepository(this.prisma);
    this.stores = new StoresRepository(this.prisma, audit);
    this.appTokens = new AppTokensRepository(this.prisma, audit);
    this.merchantUsers = new MerchantUsersRepository(this.prisma, audit);
    this.testClocks = new TestClocksRepository(this.prisma, audit);
    this.checkoutForms = new CheckoutFormsRepository(this.prisma);
    this.checkoutProducts = new CheckoutProductsRepository(this.prisma);
    this.cardVault = new CardVaultRepository(this.prisma);
    this.deferredPayments = new DeferredPaymentsRepository(this.prisma);
    this.storeLogos = new StoreLogosRepository(this.prisma);
    this.refunds = new RefundsRepository(this.prisma, audit);
    this.ledger = new LedgerRepository(this.prisma);
    this.bankAccounts = new BankAccountsRepository(this.prisma);
    this.payouts = new PayoutsRepository(this.prisma, this.ledger);
    this.transfers = new TransfersRepository(this.prisma);
    this.verifications = new MerchantVerificationsRepository(this.prisma);
    this.exchangeRates = new ExchangeRatesRepository(this.prisma);
    this.processorAccounts = new ProcessorAccountsRepository(this.prisma);
    this.webhooks = new WebhooksRepository(this.prisma, audit);
  }

  close(): Promise<void> {
    return this.prisma.onModuleDestroy();
  }
}
