import type { Provider } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '@kessai/config';
import { createLogger } from '@kessai/observability';

/** charge-service's structured logger (pino, with the redaction list). */
export const CHARGE_LOGGER = Symbol('CHARGE_LOGGER');

export const chargeLoggerProvider: Provider = {
  provide: CHARGE_LOGGER,
  useFactory: (config: AppConfig) => createLogger({ service: 'charge-service', level: config.LOG_LEVEL }),
  inject: [APP_CONFIG],
};
