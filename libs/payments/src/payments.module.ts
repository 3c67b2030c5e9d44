import { Module } from '@nestjs/common';
import { CancelsService } from './cancels/cancels.service';
import { ChargeExpiryService } from './charges/charge-expiry.service';
import { ChargesService } from './charges/charges.service';
import { liveProcessorLimitsProvider } from './charges/live-processor-limits';
import { ExchangeRatesService } from './exchange-rates/exchange-rates.service';
import { PaymentOverviewService } from './overview/payment-overview.service';
import { RefundsService } from './refunds/refunds.service';

const services = [
  ChargesService,
  ChargeExpiryService,
  RefundsService,
  CancelsService,
  ExchangeRatesService,
  PaymentOverviewService,
];

/**
 * The payment use cases every front end shares (docs/decisions/0026-use-cases-in-libs.md): charges
 * accepted, read, listed and captured; a deferred charge's deadline; refunds; cancels; amounts at the operator's exchange rates; a merchant's overview (days and balances). Needs the (global) DbModule.
 */
@Module({ providers: [...services, liveProcessorLimitsProvider], exports: services })
export class PaymentsModule {}
