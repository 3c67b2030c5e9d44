import { Body, Controller, Get, Patch, Post } from '@nestjs/common';
import { VerificationService } from '@kessai/accounts';
import { AcceptsCredentials, BeforeVerification, CurrentPrincipal } from '../auth/decorators';
import type { Principal } from '../auth/principal';
import { parseInput } from '../http/validation';
import { presentVerification } from './verification.presenter';
import { createVerificationSchema, updateVerificationSchema } from './verification.schemas';

/**
 * A merchant's verification (api-reference §5.11), the SDK's verification.get/create/update: its
 * onboarding data, one per merchant whatever the mode, which the operator approves or rejects with
 * the admin CLI (decision 0049). Merchant credentials and the merchant's users; answered to a live
 * token before the merchant is verified (it is how one gets verified). The use cases are
 * libs/accounts' VerificationService.
 */
@Controller('verification')
@AcceptsCredentials('app_token', 'login')
@BeforeVerification()
export class VerificationController {
  constructor(private readonly verifications: VerificationService) {}

  @Get()
  async get(@CurrentPrincipal() principal: Principal) {
    return presentVerification(await this.verifications.find(this.verifications.merchantOf(principal)));
  }

  @Post()
  async create(@CurrentPrincipal() principal: Principal, @Body() body: unknown) {
    const merchantId = this.verifications.merchantOf(principal);
    const input = parseInput(createVerificationSchema, body);
    return presentVerification(await this.verifications.create(merchantId, input));
  }

  @Patch()
  async update(@CurrentPrincipal() principal: Principal, @Body() body: unknown) {
    const merchantId = this.verifications.merchantOf(principal);
    const input = parseInput(updateVerificationSchema, body);
    return presentVerification(await this.verifications.update(merchantId, input));
  }
}
