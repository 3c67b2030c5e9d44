import { Module } from '@nestjs/common';
import {
  CaptureOutcomesRepository,
  ChargeOutcomesRepository,
  ChargeSweepsRepository,
  TokenCvvAuthorizeRepository,
  TokenThreeDsRepository,
} from '@kessai/db';
import { vaultProviders } from '@kessai/vault';
import { ChargeJobs } from './charge-jobs';
import { ChargeMetrics } from './charge-metrics';
import { ChargeAuthorizationService } from './charge-authorization.service';
import { ChargeCaptureService } from './charge-capture.service';
import { ChargeReconciliationService } from './charge-reconciliation.service';
import { ChargeSweeper } from './charge-sweeper';
import { PaymentInstructionsMailer } from './payment-instructions-mailer';
import { ChargesProcessor } from './charges.processor';
import { TokenAuthenticationService } from './token-authentication.service';
import { TokenCvvAuthorizationService } from './token-cvv-authorization.service';
import { paymentProcessorsProvider } from '@kessai/processor';
import { OutboxRelayModule } from '@kessai/runtime';

/**
 * Charge processing: the charges queue's processor, the processors (payment), the sweeper, the link
 * page's payment instructions mailer (decision 0034), and an outbox relay (as in webhook-service: any number of replicas may run it at once). The config,
 * Postgres, Redis, BullMQ's queues and the logger come from the worker service's root.
 */
@Module({
  imports: [OutboxRelayModule],
  providers: [
    ...vaultProviders,
    ChargeOutcomesRepository,
    CaptureOutcomesRepository,
    ChargeSweepsRepository,
    TokenThreeDsRepository,
    TokenCvvAuthorizeRepository,
    ChargeJobs,
    ChargeMetrics,
    paymentProcessorsProvider,
    ChargeAuthorizationService,
    ChargeCaptureService,
    ChargeReconciliationService,
    TokenAuthenticationService,
    TokenCvvAuthorizationService,
    ChargeSweeper,
    PaymentInstructionsMailer,
    ChargesProcessor,
  ],
  exports: [
    ChargeAuthorizationService,
    ChargeCaptureService,
    ChargeReconciliationService,
    ChargeSweeper,
    PaymentInstructionsMailer,
  ],
})
export class ChargeServiceModule {}
