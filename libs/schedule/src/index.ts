export * from './period';
export * from './schedule';
