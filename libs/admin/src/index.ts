export * from './admin.service';
export * from './bootstrap';
