import { randomUUID } from 'node:crypto';
import type { AuditEntry } from '@kessai/db';
import type { SeededMerchant, TestEnvironment } from './environment';

/** A user of the merchant's console with `role`, a fresh address and password: its id. */
export async function createConsoleUser(
  env: TestEnvironment,
  owner: SeededMerchant,
  role: 'admin' | 'developer',
  label: string,
): Promise<string> {
  const user = await env.admin.createUser({
    merchantId: owner.merchant.id,
    email: `${label}-${randomUUID()}@example.test`,
    password: `pw-${randomUUID()}`,
    role,
  });
  return user.id;
}

/**
 * A test-mode audit entry of a console session of the merchant's, on `target`. `userId` a user that
 * exists, or not (a random id): then the row's foreign key breaks inside the write's transaction,
 * which the audit suites use to show that the write does not stand without its row.
 */
export function auditEntryOf(
  owner: SeededMerchant,
  userId: string,
  action: string,
  target: { type: string; id: string },
): AuditEntry {
  return {
    merchantId: owner.merchant.id,
    userId,
    sessionId: randomUUID(),
    ip: '127.0.0.1',
    userAgent: null,
    action,
    targetType: target.type,
    targetId: target.id,
    mode: 'test',
    detail: {},
  };
}
