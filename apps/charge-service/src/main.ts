import 'reflect-metadata';
import { runWorkerMain } from '@kessai/runtime';
import { ChargeServiceModule } from './charge-service.module';
import { ChargesProcessor } from './charges.processor';

// Health port when HEALTH_PORT is not set; `npm start` sets PORT+1.
runWorkerMain({
  name: 'charge-service',
  defaultHealthPort: 3101,
  imports: [ChargeServiceModule],
  processors: [ChargesProcessor],
});
