import { Injectable } from '@nestjs/common';
import { TransactionTokensRepository, type SubscriptionWithNextPayment } from '@kessai/db';
import { isUuid, NotFoundError } from '@kessai/domain';
import type { Correlation } from '@kessai/observability';
import { SubscriptionsService } from './subscriptions.service';

/** A store's customer, as a verified customer token names them (decision 0058). */
export interface SubscriptionCustomer {
  merchantId: string;
  storeId: string;
  mode: 'test' | 'live';
  /** normalized (trimmed, lower case) */
  email: string;
}

/**
 * What a customer token may do (decision 0058): give one of its own subscriptions a new card token,
 * or cancel it. Its own: of the token's store and mode, charged to a transaction token made for the
 * customer's email. Any other subscription is the same 404 as an unknown one; the new card token
 * must be the customer's too (else 404 as an unknown token), and the merchant's rules then apply as
 * to the merchant's own call (SubscriptionsService).
 */
@Injectable()
export class CustomerSubscriptionsService {
  constructor(
    private readonly subscriptions: SubscriptionsService,
    private readonly tokens: TransactionTokensRepository,
  ) {}

  async updateToken(
    customer: SubscriptionCustomer,
    id: string,
    transactionTokenId: string,
    correlation: Correlation,
  ): Promise<SubscriptionWithNextPayment> {
    const subscription = await this.own(customer, id);
    if (!(await this.isOwnToken(customer, transactionTokenId))) throw new NotFoundError('transaction_token');
    return this.subscriptions.updateToken(
      customer,
      this.scopeOf(customer),
      subscription,
      transactionTokenId.toLowerCase(),
      correlation,
    );
  }

  async cancel(customer: SubscriptionCustomer, id: string, correlation: Correlation): Promise<void> {
    const subscription = await this.own(customer, id);
    await this.subscriptions.cancel(this.scopeOf(customer), subscription.id, correlation);
  }

  /** The customer's subscription `id`, or 404 as for an unknown one. */
  private async own(customer: SubscriptionCustomer, id: string): Promise<SubscriptionWithNextPayment> {
    if (!isUuid(id)) throw new NotFoundError('subscription');
    const subscription = await this.subscriptions.find(this.scopeOf(customer), id.toLowerCase());
    if (
      subscription.mode !== customer.mode ||
      !(await this.isOwnToken(customer, subscription.transactionTokenId))
    )
      throw new NotFoundError('subscription');
    return subscription;
  }

  /** Whether transaction token `id` is of the customer's store and mode and made for their email. */
  private async isOwnToken(customer: SubscriptionCustomer, id: string): Promise<boolean> {
    if (!isUuid(id)) return false;
    const token = await this.tokens.findInStore(customer.merchantId, customer.storeId, id.toLowerCase());
    return (
      token !== null &&
      token.mode === customer.mode &&
      token.email !== null &&
      token.email.trim().toLowerCase() === customer.email
    );
  }

  private scopeOf(customer: SubscriptionCustomer) {
    return { merchantId: customer.merchantId, storeId: customer.storeId };
  }
}
