export * from './logger';
export * from './logger.module';
export type { Logger } from 'pino';
export * from './metrics';
export * from './correlation';
