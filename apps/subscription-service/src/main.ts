import 'reflect-metadata';
import { runWorkerMain } from '@kessai/runtime';

/** Health port when HEALTH_PORT is not set; `npm start` sets PORT+2. */
runWorkerMain({ name: 'subscription-service', defaultHealthPort: 3102 });
