import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { secretMatches } from '@kessai/auth';
import type { AdminService } from './admin.service';

export const DEMO_MERCHANT = { name: 'Demo Merchant', email: 'demo@kessai.local' };
export const DEMO_STORE_NAME = 'Demo Store';

export interface DemoCredentials {
  merchant_id: string;
  store_id: string;
  app_token_id: string;
  secret: string;
  jwt: string;
  mode: 'test';
  base_url: string;
}

/**
 * Creates the demo merchant, store and a store-scoped test app token, or reuses them. A token's
 * secret is only ever shown once, so the credentials are remembered in a local file (kept out of
 * git) and reused while that token is still valid; otherwise a new token is issued.
 */
export async function bootstrapDemo(
  admin: AdminService,
  baseUrl: string,
  credentialsFile: string,
): Promise<DemoCredentials> {
  const merchant =
    (await admin.merchants.findByEmail(DEMO_MERCHANT.email)) ??
    (await admin.createMerchant({ ...DEMO_MERCHANT, verified: true }));
  const store =
    (await admin.stores.findByName(merchant.id, DEMO_STORE_NAME)) ??
    (await admin.createStore({ merchantId: merchant.id, name: DEMO_STORE_NAME }));

  const saved = readSaved(credentialsFile);
  if (saved && saved.store_id === store.id) {
    const token = await admin.appTokens.findById(saved.app_token_id);
    if (
      token &&
      !token.revokedOn &&
      token.storeId === store.id &&
      secretMatches(saved.secret, token.secretHash)
    ) {
      const credentials = { ...saved, base_url: baseUrl };
      write(credentialsFile, credentials);
      return credentials;
    }
  }

  const issued = await admin.issueAppToken({
    merchantId: merchant.id,
    storeId: store.id,
    mode: 'test',
    domains: ['localhost'],
  });
  const credentials: DemoCredentials = {
    merchant_id: merchant.id,
    store_id: store.id,
    app_token_id: issued.id,
    secret: issued.secret,
    jwt: issued.jwt,
    mode: 'test',
    base_url: baseUrl,
  };
  write(credentialsFile, credentials);
  return credentials;
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
