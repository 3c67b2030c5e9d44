export * from './period';
export * from './schedule';
export * from './stored';
export * from './engine-decisions';
export * from './availability';
export * from './payout-days';
