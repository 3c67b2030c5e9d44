import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { randomBytes } from 'node:crypto';
import { secretMatches, verifyPassword } from '@kessai/auth';
import { AdminError, type AdminService } from './admin.service';

export const DEMO_MERCHANT = { name: 'Demo Merchant', email: 'demo@kessai.local' };
export const DEMO_STORE_NAME = 'Demo Store';
export const DEMO_USER = { name: 'Demo User', email: 'demo@kessai.local' };

export interface DemoCredentials {
  merchant_id: string;
  store_id: string;
  app_token_id: string;
  secret: string;
  jwt: string;
  mode: 'test';
  /** the demo merchant user, for POST /authenticate */
  user_email: string;
  /**
   * null once an owner removed the demo user in the console: a removal stays (docs/console.md),
   * bootstrap neither restores it nor gives it a password
   */
  user_password: string | null;
  base_url: string;
}

/**
 * Creates the demo merchant (PCI DSS compliant, test mode only), store, a store-scoped test app
 * token and a merchant user, or reuses them. A token's secret and the user's password are only known when they are made, so the
 * credentials are remembered in a local file (kept out of git) and reused while they still work;
 * otherwise a new token is issued, or the user gets a new password. A demo user an owner removed
 * in the console stays removed (no password, `user_password` null).
 */
export async function bootstrapDemo(
  admin: AdminService,
  baseUrl: string,
  credentialsFile: string,
): Promise<DemoCredentials> {
  let merchant =
    (await admin.merchants.findByEmail(DEMO_MERCHANT.email)) ??
    (await admin.createMerchant({ ...DEMO_MERCHANT, verified: true }));
  // a test-mode sandbox: marked PCI DSS compliant so that the quick start can send card data with
  // its secret (POST /tokens, then a charge); merchants made by merchant:create are not, until
  // `merchant:pci` says so. A demo merchant of an earlier bootstrap is marked too.
  if (!merchant.pciDssCompliant) merchant = await admin.setPciDssCompliant(merchant.id, true);
  const store =
    (await admin.stores.findByName(merchant.id, DEMO_STORE_NAME)) ??
    (await admin.createStore({ merchantId: merchant.id, name: DEMO_STORE_NAME }));

  const saved = readSaved(credentialsFile);
  const appToken =
    saved && saved.store_id === store.id && (await savedTokenWorks(admin, saved, store.id))
      ? { app_token_id: saved.app_token_id, secret: saved.secret, jwt: saved.jwt }
      : await issueDemoToken(admin, merchant.id, store.id);
  const credentials: DemoCredentials = {
    merchant_id: merchant.id,
    store_id: store.id,
    ...appToken,
    mode: 'test',
    ...(await demoUser(admin, merchant.id, saved)),
    base_url: baseUrl,
  };
  write(credentialsFile, credentials);
  return credentials;
}

async function savedTokenWorks(admin: AdminService, saved: DemoCredentials, storeId: string) {
  const token = await admin.appTokens.findById(saved.app_token_id);
  return (
    !!token && !token.revokedOn && token.storeId === storeId && secretMatches(saved.secret, token.secretHash)
  );
}

async function issueDemoToken(admin: AdminService, merchantId: string, storeId: string) {
  const issued = await admin.issueAppToken({ merchantId, storeId, mode: 'test', domains: ['localhost'] });
  return { app_token_id: issued.id, secret: issued.secret, jwt: issued.jwt };
}

async function demoUser(
  admin: AdminService,
  merchantId: string,
  saved: DemoCredentials | null,
): Promise<Pick<DemoCredentials, 'user_email' | 'user_password'>> {
  const existing = await admin.users.findByEmailRemovedOrNot(DEMO_USER.email);
  if (existing && existing.merchantId !== merchantId) {
    throw new AdminError(`${DEMO_USER.email} is a user of another merchant (${existing.merchantId})`);
  }
  // an owner removed it (its sessions ended, its removal audited): a restart does not undo that
  if (existing?.removedOn) return { user_email: existing.email, user_password: null };
  if (
    existing &&
    saved?.user_email === existing.email &&
    typeof saved.user_password === 'string' &&
    (await verifyPassword(saved.user_password, existing.passwordHash))
  ) {
    return { user_email: existing.email, user_password: saved.user_password };
  }
  const password = randomBytes(12).toString('base64url');
  if (existing) await admin.setUserPassword(existing.id, password);
  else await admin.createUser({ merchantId, ...DEMO_USER, password });
  return { user_email: DEMO_USER.email, user_password: password };
}

function readSaved(file: string): DemoCredentials | null {
  if (!existsSync(file)) return null;
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as DemoCredentials;
  } catch {
    return null;
  }
}

function write(file: string, credentials: DemoCredentials) {
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, `${JSON.stringify(credentials, null, 2)}\n`, { mode: 0o600 });
}
