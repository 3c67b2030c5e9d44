import { Body, Controller, Get, HttpCode, Inject, Param, Post, Query, Req } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { APP_CONFIG, type AppConfig } from '@kessai/config';
import { StoresRepository } from '@kessai/db';
import { NotFoundError, StoreTokenRequiredError } from '@kessai/domain';
import { effectiveConfiguration } from '@kessai/store-configuration';
import { checkGatewayCallMethod, onlineGateway } from '@kessai/transaction-tokens';
import { BrowserAllowed, CurrentPrincipal } from '../auth/decorators';
import type { Principal } from '../auth/principal';
import { publicBaseUrl, storeLogoUrl } from '../http/public-base-url';
import { parseInput } from '../http/validation';
import { presentCheckoutGateway, presentCheckoutInfo } from './checkout-info.presenter';
import { checkoutGatewaySchema, checkoutInfoQuery } from './checkout-info.schemas';

/**
 * GET /checkout_info (api-reference §5.9): what the app token's store accepts, for the hosted
 * checkout. A browser route: a secret-less store token from an Origin in its domains may call it.
 * POST /checkout_info/gateways/{brand} (checkoutInfo.gateway): the wallets behind Alipay+ in test
 * mode (decision 0058).
 */
@Controller('checkout_info')
export class CheckoutInfoController {
  constructor(
    private readonly stores: StoresRepository,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  @Get()
  @BrowserAllowed()
  async get(
    @CurrentPrincipal() principal: Principal,
    @Query() query: Record<string, unknown>,
    @Req() request: FastifyRequest,
  ) {
    parseInput(checkoutInfoQuery, query);
    // the checkout is a store's: a merchant-wide token names none
    if (principal.storeId === null) throw new StoreTokenRequiredError();
    const store = await this.stores.findVisibleWithMerchant(principal, principal.storeId);
    if (!store) throw new NotFoundError('store');
    const config = effectiveConfiguration(store.merchant.configuration, store.configuration);
    return presentCheckoutInfo(
      store,
      principal.mode,
      config,
      storeLogoUrl(publicBaseUrl(this.config, request), store),
    );
  }

  @Post('gateways/:brand')
  @BrowserAllowed()
  @HttpCode(200)
  async gateway(
    @CurrentPrincipal() principal: Principal,
    @Param('brand') brand: string,
    @Body() body: unknown,
  ) {
    const request = parseInput(checkoutGatewaySchema, body);
    checkGatewayCallMethod(request.call_method, request.os_type);
    if (principal.storeId === null) throw new StoreTokenRequiredError();
    const store = await this.stores.findVisibleWithMerchant(principal, principal.storeId);
    if (!store) throw new NotFoundError('store');
    const config = effectiveConfiguration(store.merchant.configuration, store.configuration);
    return presentCheckoutGateway(onlineGateway(brand, principal.mode, config.online_configuration));
  }
}
