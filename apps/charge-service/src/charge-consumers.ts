import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { z } from 'zod';
import { APP_CONFIG, type AppConfig } from '@kessai/config';
import { CHARGES_QUEUE } from '@kessai/contracts';
import type { QueueConsumer } from '@kessai/runtime';
import { ChargeProcessingService } from './charge-processing.service';

/**
 * A job of the charges queue: OutboxJobData from the relay (eventId: the command's outbox event),
 * or the sweeper's, which has no event. Either way aggregateId is the charge id.
 */
const chargeJobDataSchema = z.object({
  aggregateId: z.string().uuid(),
  eventId: z.string().uuid().optional(),
  eventType: z.string(),
});

export type ChargeJobData = z.infer<typeof chargeJobDataSchema>;

/** A process_charges job: the charge_requested events of one relay batch (OutboxBatchJobData). */
const chargeBatchJobDataSchema = z.object({
  events: z.array(chargeJobDataSchema.extend({ eventId: z.string().uuid() })).min(1),
});

/** charge-service's consumer of CHARGES_QUEUE, one handler per job (QueueWorkers checks they all exist). */
export function chargeConsumers(app: NestFastifyApplication): QueueConsumer[] {
  const service = app.get(ChargeProcessingService);
  const config = app.get<AppConfig>(APP_CONFIG);
  const run =
    (handle: (chargeId: string, causeEventId: string | null) => Promise<void>) =>
    (job: { data: unknown }) => {
      const data = chargeJobDataSchema.parse(job.data);
      return handle(data.aggregateId, data.eventId ?? null);
    };
  return [
    {
      queue: CHARGES_QUEUE,
      concurrency: config.CHARGE_WORKER_CONCURRENCY,
      lockDurationMs: config.CHARGE_JOB_LOCK_MS,
      handlers: {
        process_charges: (job: { data: unknown }) =>
          service.processCharges(
            chargeBatchJobDataSchema
              .parse(job.data)
              .events.map((event) => ({ chargeId: event.aggregateId, causeEventId: event.eventId })),
          ),
        process_charge: run((id, cause) => service.processCharge(id, cause)),
        capture_charge: run((id, cause) => service.captureCharge(id, cause)),
        reconcile_charge: run((id, cause) => service.reconcileCharge(id, cause)),
      },
    },
  ];
}
