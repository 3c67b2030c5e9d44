import 'reflect-metadata';
import { runWorkerMain } from '@kessai/runtime';
import { WebhookDeliveriesProcessor } from './webhook-deliveries.processor';
import { WebhookServiceModule } from './webhook-service.module';

// Health port when HEALTH_PORT is not set; `npm start` sets PORT+4.
runWorkerMain({
  name: 'webhook-service',
  defaultHealthPort: 3104,
  imports: [WebhookServiceModule],
  processors: [WebhookDeliveriesProcessor],
});
