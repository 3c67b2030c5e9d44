import 'reflect-metadata';
import { runWorkerMain } from '@kessai/runtime';
import { RefundCancelServiceModule } from './refund-cancel-service.module';
import { RefundsCancelsProcessor } from './refunds-cancels.processor';

// Health port when HEALTH_PORT is not set; `npm start` sets PORT+3.
runWorkerMain({
  name: 'refund-cancel-service',
  defaultHealthPort: 3103,
  imports: [RefundCancelServiceModule],
  processors: [RefundsCancelsProcessor],
});
