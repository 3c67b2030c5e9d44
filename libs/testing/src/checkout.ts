import type { SeededMerchant } from './environment';
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
