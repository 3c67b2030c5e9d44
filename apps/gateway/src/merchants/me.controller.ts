import { Controller, Get } from '@nestjs/common';
import { MerchantsRepository } from '@kessai/db';
import { NotFoundError } from '@kessai/domain';
import { AcceptsCredentials, BeforeVerification, CurrentPrincipal } from '../auth/decorators';
import type { Principal } from '../auth/principal';
import { presentMerchant } from './merchant.presenter';

@Controller()
export class MeController {
  constructor(private readonly merchants: MerchantsRepository) {}

  /** The merchant that owns the calling app token, or of the signed-in user (verified or not). */
  @AcceptsCredentials('app_token', 'login')
  @BeforeVerification()
  @Get('me')
  async me(@CurrentPrincipal() principal: Principal) {
    const merchant = await this.merchants.findById(principal.merchantId);
    if (!merchant) throw new NotFoundError('merchant');
    return presentMerchant(merchant);
  }
}
