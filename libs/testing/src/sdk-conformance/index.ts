export * from './check';
export * from './record';
export * from './report';
export * from './schemas';
