import type { LoggerService } from '@nestjs/common';
import pino, { type DestinationStream, type Logger } from 'pino';
import { currentCorrelationId } from './correlation';

/** Fields never written to a log line, at any depth pino's redaction reaches. */
export const REDACTED_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'headers.authorization',
  'authorization',
  'secret',
  'jwt',
  'password',
  'card_number',
  'cvv',
  '*.authorization',
  '*.secret',
  '*.jwt',
  '*.password',
  '*.card_number',
  '*.cvv',
  '*.*.card_number',
  '*.*.cvv',
  'auth_token',
  '*.auth_token',
  // a store customer's login code (refers.authorize)
  'otp',
  '*.otp',
  // webhook signing secrets (whsec_…), in either casing
  'signing_secret',
  '*.signing_secret',
  'signingSecret',
  '*.signingSecret',
  'previousSigningSecret',
  '*.previousSigningSecret',
  'authToken',
  '*.authToken',
  // a bank account's number (the request's and the row's names) and its encrypted columns
  'account_number',
  '*.account_number',
  'accountNumber',
  '*.accountNumber',
  'ciphertext',
  '*.ciphertext',
  // a processor account's credentials (libs/vault ProcessorCredentials, and the CLI's names)
  'secretKey',
  '*.secretKey',
  'secret_key',
  '*.secret_key',
  'webhookSecret',
  '*.webhookSecret',
  'webhook_secret',
  '*.webhook_secret',
  'credentials',
  '*.credentials',
];

export interface LoggerOptions {
  service: string;
  level: string;
  destination?: DestinationStream;
}

export function createLogger({ service, level, destination }: LoggerOptions): Logger {
  return pino(
    {
      level,
      base: { service },
      redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
      timestamp: pino.stdTimeFunctions.isoTime,
      // the correlation id of the request or job the line is written for (correlation.ts)
      mixin: () => {
        const correlationId = currentCorrelationId();
        return correlationId === undefined ? {} : { correlationId };
      },
    },
    destination,
  );
}

/** Lets Nest's own messages go through the same structured, redacting logger. */
export class NestPinoLogger implements LoggerService {
  constructor(private readonly logger: Logger) {}

  log(message: unknown, context?: string) {
    this.logger.info({ context }, String(message));
  }
  error(message: unknown, trace?: string, context?: string) {
    this.logger.error({ context, trace }, String(message));
  }
  warn(message: unknown, context?: string) {
    this.logger.warn({ context }, String(message));
  }
  debug(message: unknown, context?: string) {
    this.logger.debug({ context }, String(message));
  }
  verbose(message: unknown, context?: string) {
    this.logger.trace({ context }, String(message));
  }
}

/** The process's one logger (pino), as a Nest injection token: every provider logs through it. */
export const LOGGER = Symbol('LOGGER');
