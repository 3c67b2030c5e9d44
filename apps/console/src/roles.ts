import type { MerchantUser } from '@kessai/db';

export type Role = MerchantUser['role'];

/**
 * What a console user may do, by role (docs/console.md): every page reads for every role; owner and
 * admin act on payments (refund, capture, cancel) and
 * subscriptions (suspend, unsuspend, cancel), change the stores' settings and read the audit log; developer manages keys and webhooks; viewer only reads.
 */
export type Permission =
  | 'payments:read'
  | 'payments:refund'
  | 'payments:capture'
  | 'payments:cancel'
  | 'subscriptions:manage'
  | 'audit:read'
  | 'developers:manage'
  | 'users:manage'
  // a store's name, logo and configuration (owner and admin)
  | 'stores:manage';

const PAYMENT_ACTIONS: readonly Permission[] = [
  'payments:refund',
  'payments:capture',
  'payments:cancel',
  'subscriptions:manage',
  'audit:read',
];

const GRANTS: Record<Role, readonly Permission[]> = {
  owner: ['payments:read', ...PAYMENT_ACTIONS, 'developers:manage', 'users:manage', 'stores:manage'],
  admin: ['payments:read', ...PAYMENT_ACTIONS, 'developers:manage', 'stores:manage'],
  developer: ['payments:read', 'developers:manage'],
  viewer: ['payments:read'],
};

export function may(role: Role, permission: Permission): boolean {
  return GRANTS[role].includes(permission);
}
