import 'reflect-metadata';
import { runWorkerMain } from '@kessai/runtime';

/** Health port when HEALTH_PORT is not set; `npm start` sets PORT+1. */
runWorkerMain({ name: 'charge-service', defaultHealthPort: 3101 });
