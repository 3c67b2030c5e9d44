import 'reflect-metadata';
import { runWorkerMain } from '@kessai/runtime';

/** Health port when HEALTH_PORT is not set; `npm start` sets PORT+3. */
runWorkerMain({ name: 'refund-cancel-service', defaultHealthPort: 3103 });
