export * from './logger';
export type { Logger } from 'pino';
export * from './metrics';
