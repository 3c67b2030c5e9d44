export * from './errors';
export * from './pagination';
export * from './limits';
export * from './money';
export * from './uuid';
export * from './charge-status';
export * from './capture-status';
