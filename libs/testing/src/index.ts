export * from './database';
export * from './environment';
