import 'reflect-metadata';
import { runWorkerMain } from '@kessai/runtime';

/** Health port when HEALTH_PORT is not set; `npm start` sets PORT+4. */
runWorkerMain({ name: 'webhook-service', defaultHealthPort: 3104, outboxRelay: true });
