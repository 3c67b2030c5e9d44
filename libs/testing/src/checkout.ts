import type { SeededMerchant } from './environment';
import { requestJson } from './http';
import { sdkFor } from './sdk';
import type { Suite } from './suite';

/** What the checkout helpers need of a suite: its admin CLI. */
type WithCli = Pick<Suite, 'cli'>;

/**
 * A checkout form of the merchant's store for its store token, made as the operator makes one
 * (`checkout:form:create`), with `design` as the form's settings when given: the form the CLI answers.
 */
export function createCheckoutForm(
  suite: WithCli,
  owner: SeededMerchant,
  name: string,
  design?: Record<string, unknown>,
): ReturnType<Suite['cli']> {
  return suite.cli(
    ...['checkout:form:create', '--store', owner.store.id, '--app-token', owner.storeToken.id],
    ...['--name', name, ...(design ? ['--set', JSON.stringify(design)] : [])],
  );
}

export interface CheckoutProduct {
  name: string;
  amount: number;
  currency: string;
  code?: string;
  /** the product's other settings (`--set`) */
  settings?: Record<string, unknown>;
}

/** A product of the merchant's store, made with the admin CLI (`checkout:product:create`). */
export function createCheckoutProduct(
  suite: WithCli,
  owner: SeededMerchant,
  product: CheckoutProduct,
): ReturnType<Suite['cli']> {
  return suite.cli(
    ...['checkout:product:create', '--store', owner.store.id, '--name', product.name],
    ...['--amount', String(product.amount), '--currency', product.currency],
    ...(product.code ? ['--code', product.code] : []),
    ...(product.settings ? ['--set', JSON.stringify(product.settings)] : []),
  );
}

/** What a payment link's page holds of its link: the id in its path, the secret and JWT of its credential. */
export interface CheckoutLinkCredentials {
  id: string;
  secret: string;
  jwt: string;
}

/**
 * A temporary link of the merchant's form (`ecFormLinks.createTemporary` with its store token): 1500
 * JPY for a one-time token unless `extra` says otherwise; the link the SDK answers.
 */
export function createCheckoutLink(
  url: string,
  owner: SeededMerchant,
  formId: string,
  extra: Record<string, unknown> = {},
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the SDK's link, read by each suite as it needs
): Promise<any> {
  return sdkFor(url, owner.storeToken).ecFormLinks.createTemporary({
    formId,
    amount: 1500,
    currency: 'JPY',
    tokenType: 'one_time',
    ...extra,
  } as never);
}

/** A link's own credential: its secret and JWT as one Bearer, what its page sends. */
export const linkAuth = (link: CheckoutLinkCredentials): string => `Bearer ${link.secret}.${link.jwt}`;

/**
 * The two calls a link's page makes with the link's credential, from `origin` (the gateway's own
 * unless told, as the page's script runs there; null: no Origin header at all): POST /tokens with a
 * payment method, and the link's payment of a token (with an idempotency key or extra fields when a
 * test wants them).
 */
export function linkPage(url: string, link: CheckoutLinkCredentials, from: string | null = url) {
  const auth = linkAuth(link);
  const origin = from ?? undefined;
  return {
    token: (json: unknown) => requestJson(url, '/tokens', { method: 'POST', auth, origin, json }),
    pay: (transactionTokenId: string, init: { key?: string; extra?: Record<string, unknown> } = {}) =>
      requestJson(url, `/checkout/links/${link.id}/payments`, {
        method: 'POST',
        auth,
        origin,
        key: init.key,
        json: { transaction_token_id: transactionTokenId, ...init.extra },
      }),
  };
}
