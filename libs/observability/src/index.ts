export * from './logger';
export type { Logger } from 'pino';
