import { Module } from '@nestjs/common';
import { liveProcessorLimitsProvider } from '@kessai/payments';
import { vaultProviders } from '@kessai/vault';
import { TokenConfirmationDelivery } from './token-confirmation';
import { TokenAliasesService } from './token-aliases.service';
import { TokenCheckRouting } from './token-check-routing';
import { TokenThreeDsService } from './token-three-ds.service';
import { TransactionTokensService } from './transaction-tokens.service';

const services = [TransactionTokensService, TokenThreeDsService, TokenAliasesService];

/**
 * The transaction token use cases every front end shares (docs/decisions/0026-use-cases-in-libs.md):
 * tokens created, confirmed, renewed, read, listed, changed and deleted; their 3-D Secure; their
 * temporary aliases; where a card token's own checks go (TokenCheckRouting). The one
 * module of card data: it registers the card vault and the pending CVVs (libs/vault), so a process
 * that imports it needs VAULT_KEYS and VAULT_FINGERPRINT_SECRET. Needs the (global) ConfigModule,
 * DbModule, RedisModule and LoggerModule.
 */
@Module({
  providers: [
    ...vaultProviders,
    TokenConfirmationDelivery,
    liveProcessorLimitsProvider,
    TokenCheckRouting,
    ...services,
  ],
  exports: services,
})
export class TransactionTokensModule {}
