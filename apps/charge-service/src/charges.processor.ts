import { Processor } from '@nestjs/bullmq';
import { Inject } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '@kessai/config';
import { CHARGES_QUEUE, type QueueJob } from '@kessai/contracts';
import { QueueProcessor, unhandledJob } from '@kessai/runtime';
import { ChargeAuthorizationService } from './charge-authorization.service';
import { ChargeCaptureService } from './charge-capture.service';
import { ChargeReconciliationService } from './charge-reconciliation.service';
import { TokenAuthenticationService } from './token-authentication.service';
import { TokenCvvAuthorizationService } from './token-cvv-authorization.service';

/**
 * charge-service's worker of the charges queue: each job to the service named for it (authorization,
 * capture, reconciliation; TokenAuthenticationService for a card token's 3-D Secure,
 * TokenCvvAuthorizationService for its CVV authorization).
 */
@Processor(CHARGES_QUEUE.name)
export class ChargesProcessor extends QueueProcessor<typeof CHARGES_QUEUE> {
  constructor(
    private readonly authorization: ChargeAuthorizationService,
    private readonly captures: ChargeCaptureService,
    private readonly reconciliation: ChargeReconciliationService,
    private readonly tokens: TokenAuthenticationService,
    private readonly cvvAuthorization: TokenCvvAuthorizationService,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    super(CHARGES_QUEUE, {
      concurrency: config.CHARGE_WORKER_CONCURRENCY,
      // a killed worker's jobs are handed to another once this lock expires (plus one stalled check)
      lockDuration: config.CHARGE_JOB_LOCK_MS,
    });
  }

  protected handle(job: QueueJob<typeof CHARGES_QUEUE>): Promise<void> {
    switch (job.name) {
      case 'process_charges':
        return this.authorization.processCharges(
          job.data.events.map((event) => ({
            chargeId: event.aggregateId,
            causeEventId: event.eventId,
            correlationId: event.correlationId,
          })),
        );
      case 'process_charge':
        return this.authorization.processCharge(job.data.aggregateId, job.data.eventId ?? null);
      case 'capture_charge':
        return this.captures.captureCharge(job.data.aggregateId, job.data.eventId ?? null);
      case 'reconcile_charge':
        return this.reconciliation.reconcileCharge(job.data.aggregateId, job.data.eventId ?? null);
      case 'authenticate_token':
        return this.tokens.authenticateToken(job.data.aggregateId, job.data.eventId ?? null);
      case 'authorize_token_cvv':
        return this.cvvAuthorization.authorizeTokenCvv(job.data.aggregateId, job.data.eventId ?? null);
      default:
        return unhandledJob(job);
    }
  }
}
