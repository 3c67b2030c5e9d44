import 'reflect-metadata';
import { runWorkerMain } from '@kessai/runtime';
import { SubscriptionServiceModule } from './subscription-service.module';
import { SubscriptionsProcessor } from './subscriptions.processor';

// Health port when HEALTH_PORT is not set; `npm start` sets PORT+2.
runWorkerMain({
  name: 'subscription-service',
  defaultHealthPort: 3102,
  imports: [SubscriptionServiceModule],
  processors: [SubscriptionsProcessor],
});
