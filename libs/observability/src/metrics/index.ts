export * from './registry';
export * from './metrics-access';
export * from './scrape-cache';
