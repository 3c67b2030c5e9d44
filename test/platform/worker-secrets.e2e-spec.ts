import { ConfigError, loadConfig, SECRET_USERS, type AppConfig } from '@kessai/config';
import { startWorkerService, type WorkerServiceOptions } from '@kessai/runtime';
import { useSuite } from '@kessai/testing';
import { cardVaultProvider } from '@kessai/vault';
import { ChargeServiceModule } from '../../apps/charge-service/src/charge-service.module';
import { ChargesProcessor } from '../../apps/charge-service/src/charges.processor';
import { RefundCancelServiceModule } from '../../apps/refund-cancel-service/src/refund-cancel-service.module';
import { RefundsCancelsProcessor } from '../../apps/refund-cancel-service/src/refunds-cancels.processor';
import { SubscriptionServiceModule } from '../../apps/subscription-service/src/subscription-service.module';
import { SubscriptionsProcessor } from '../../apps/subscription-service/src/subscriptions.processor';
import { WebhookDeliveriesProcessor } from '../../apps/webhook-service/src/webhook-deliveries.processor';
import { WebhookServiceModule } from '../../apps/webhook-service/src/webhook-service.module';
import { LedgerServiceModule } from '../../apps/ledger-service/src/ledger-service.module';

/**
 * Each worker service starts with the secrets it uses and none of the others (decision 0027): the
 * real service modules, booted from a config parsed for that process without the secrets it does
 * not need. A service whose providers needed one would fail here at start.
 */
const suite = useSuite();

/** The suite's variables without every secret `name` does not use. */
function variablesOf(name: string): Record<string, string> {
  const variables = { ...suite.env.variables };
  for (const [secret, users] of Object.entries(SECRET_USERS))
    if (!(users as readonly string[]).includes(name)) delete variables[secret];
  return variables;
}

const services: Array<
  Pick<WorkerServiceOptions, 'imports' | 'processors'> & {
    name:
      | 'charge-service'
      | 'refund-cancel-service'
      | 'subscription-service'
      | 'webhook-service'
      | 'ledger-service';
  }
> = [
  { name: 'charge-service', imports: [ChargeServiceModule], processors: [ChargesProcessor] },
  {
    name: 'refund-cancel-service',
    imports: [RefundCancelServiceModule],
    processors: [RefundsCancelsProcessor],
  },
  {
    name: 'subscription-service',
    imports: [SubscriptionServiceModule],
    processors: [SubscriptionsProcessor],
  },
  { name: 'webhook-service', imports: [WebhookServiceModule], processors: [WebhookDeliveriesProcessor] },
  // consumes no queue: it reads the outbox from Postgres
  { name: 'ledger-service', imports: [LedgerServiceModule], processors: [] },
];

describe('per-process secrets', () => {
  it.each(services.map((service) => [service.name, service] as const))(
    '%s starts without the secrets it does not use',
    async (_, { name, imports, processors }) => {
      const config = loadConfig(variablesOf(name), name);
      expect(config.JWT_SIGNING_KEY).toBeUndefined();
      expect(config.IDEMPOTENCY_KEY_SECRET).toBeUndefined();
      const service = await startWorkerService({ name, config, healthPort: 0, imports, processors });
      try {
        const health = await fetch(`${service.url}/health`);
        expect(health.status).toBe(200);
      } finally {
        await service.stop();
      }
    },
  );

  it('charge-service does not start without the card vault keys, naming them', () => {
    const variables = variablesOf('charge-service');
    delete variables.VAULT_KEYS;
    expect(() => loadConfig(variables, 'charge-service')).toThrow(
      new ConfigError(['VAULT_KEYS is required (the charge-service uses it)']),
    );
    // a config parsed for another process: the vault refuses it when it is built (at start)
    const config = loadConfig(variables, 'subscription-service');
    const vault = cardVaultProvider as { useFactory: (config: AppConfig) => unknown };
    expect(() => vault.useFactory(config)).toThrow(
      new ConfigError(['VAULT_KEYS is required (the card vault uses it)']),
    );
  });
});
