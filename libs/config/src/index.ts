export * from './config.schema';
export * from './load-config';
export * from './config.module';
