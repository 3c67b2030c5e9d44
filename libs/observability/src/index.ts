export * from './logger';
export type { Logger } from 'pino';
export * from './metrics';
export * from './correlation';
