export * from './admin.service';
export * from './bootstrap';
export * from './cli';
export * from './checkout';
