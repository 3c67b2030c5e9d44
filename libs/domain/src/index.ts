export * from './errors';
export * from './pagination';
