export * from './database';
export * from './environment';
export * from './processes';
export * from './http';
export * from './sdk';
export * from './card-leaks';
export * from './processor-specs';
