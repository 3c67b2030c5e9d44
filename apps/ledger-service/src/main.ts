import 'reflect-metadata';
import { runWorkerMain } from '@kessai/runtime';
import { LedgerServiceModule } from './ledger-service.module';

// Health port when HEALTH_PORT is not set; `npm start` sets PORT+5. It consumes no queue: it reads
// the outbox from Postgres (docs/ledger.md, "Posting").
runWorkerMain({
  name: 'ledger-service',
  defaultHealthPort: 3105,
  imports: [LedgerServiceModule],
});
