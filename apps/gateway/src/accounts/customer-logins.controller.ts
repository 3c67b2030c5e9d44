import { createHash } from 'node:crypto';
import { Body, Controller, HttpCode, Post, Req } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { CustomerLoginsService } from '@kessai/accounts';
import { StoreTokenRequiredError } from '@kessai/domain';
import { planFor, RateLimiter, type BucketCheck } from '@kessai/rate-limits';
import { BrowserAllowed, PathTarget } from '../auth/decorators';
import { storeScopeOf } from '../auth/path-scope';
import type { Principal } from '../auth/principal';
import { parseInput } from '../http/validation';
import { customerAuthenticationSchema } from './account.schemas';

/**
 * A store's customers log in by email (the SDK's refers.sendCode and refers.authorize, one route:
 * api-reference §5.7; decision 0058). `{email}` mails a code to a customer of the store and answers
 * `{}` whoever the address is; `{email, otp}` trades the code for a customer token `{jwt}`. Called
 * with the store's app token (its public one from an Origin in its domains, or with the secret); a
 * merchant token names the store in the path. Besides the app token's own buckets, each customer
 * of a store (store and email) is throttled as POST /authenticate is, whichever token asks.
 */
@Controller()
export class CustomerLoginsController {
  readonly #throttle: BucketCheck[];

  constructor(
    private readonly logins: CustomerLoginsService,
    private readonly limiter: RateLimiter,
  ) {
    this.#throttle = planFor(limiter.settings, {
      method: 'POST',
      url: '/authenticate',
      routePattern: '/authenticate',
    }).buckets;
  }

  @Post('customers/authenticate')
  @BrowserAllowed()
  @HttpCode(200)
  authenticate(
    @PathTarget() { principal }: PathTarget,
    @Body() body: unknown,
    @Req() request: FastifyRequest,
  ) {
    return this.#authenticate(principal, null, body, request);
  }

  @Post('stores/:storeId/customers/authenticate')
  @BrowserAllowed()
  @HttpCode(200)
  authenticateInStore(
    @PathTarget() { principal, storeId }: PathTarget,
    @Body() body: unknown,
    @Req() request: FastifyRequest,
  ) {
    return this.#authenticate(principal, storeId, body, request);
  }

  async #authenticate(principal: Principal, storeId: string | null, body: unknown, request: FastifyRequest) {
    const scope = storeScopeOf(principal, storeId, 'store');
    if (scope.storeId === null) throw new StoreTokenRequiredError();
    const store = { merchantId: scope.merchantId, storeId: scope.storeId, mode: principal.mode };
    const { email, otp } = parseInput(customerAuthenticationSchema, body);
    await this.#throttleCustomer(store.storeId, email);
    if (otp === undefined) {
      await this.logins.accept(store, email);
      return {};
    }
    const { jwt } = await this.logins.authorize(store, email, otp, request.ip);
    return { jwt };
  }

  /** The sign-in throttle of one customer of a store, on RATE_LIMIT_REDIS_FAILURE's terms. */
  #throttleCustomer(storeId: string, email: string): Promise<void> {
    const subject = createHash('sha1').update(`${storeId}:${email.trim().toLowerCase()}`).digest('base64url');
    return this.limiter.enforce(`customer_${subject}`, this.#throttle);
  }
}
