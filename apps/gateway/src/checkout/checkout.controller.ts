import { Body, Controller, Get, Param, Post, Query } from '@nestjs/common';
import { BrowserAllowed, CurrentPrincipal, Open } from '../auth/decorators';
import type { Principal } from '../auth/principal';
import { CheckoutService } from './checkout.service';

/**
 * The hosted checkout resources (api-reference §5.11; the SDK's ecForms, ecFormLinks,
 * ecLinksProducts, ecInfo, emails and products; docs/hosted-checkout.md). Who may call each:
 *
 * - forms, products, a link's products: an app token of the merchant (a store token: its store);
 *   also a secret-less store token from an Origin in its domains (the widget reads them);
 * - a link, creating one, an email: a secret-bearing app token only (a link carries its secret);
 * - checkout info: open, the link's secret in the query is the credential.
 */
@Controller('checkout')
export class CheckoutController {
  constructor(private readonly checkout: CheckoutService) {}

  @Get('forms/:id')
  @BrowserAllowed()
  getForm(@CurrentPrincipal() principal: Principal, @Param('id') id: string) {
    return this.checkout.getForm(principal, id);
  }

  @Post('links/temporary')
  createTemporaryLink(@CurrentPrincipal() principal: Principal, @Body() body: unknown) {
    return this.checkout.createTemporaryLink(principal, body);
  }

  @Get('links/:id')
  getLink(@CurrentPrincipal() principal: Principal, @Param('id') id: string) {
    return this.checkout.getLink(principal, id);
  }

  @Get('links/:linkId/products')
  @BrowserAllowed()
  listLinkProducts(@CurrentPrincipal() principal: Principal, @Param('linkId') linkId: string) {
    return this.checkout.listLinkProducts(principal, linkId);
  }

  @Post('links/:id/emails')
  createEmail(@CurrentPrincipal() principal: Principal, @Param('id') id: string, @Body() body: unknown) {
    return this.checkout.createEmail(principal, id, body);
  }

  @Get('info/:id')
  @Open()
  getInfo(@Param('id') id: string, @Query() query: Record<string, unknown>) {
    return this.checkout.getInfo(id, query);
  }

  @Get('emails/:id')
  getEmail(@CurrentPrincipal() principal: Principal, @Param('id') id: string) {
    return this.checkout.getEmail(principal, id);
  }

  @Get('products/code/:code')
  @BrowserAllowed()
  getProductByCode(@CurrentPrincipal() principal: Principal, @Param('code') code: string) {
    return this.checkout.getProductByCode(principal, code);
  }

  @Get('products/:id')
  @BrowserAllowed()
  getProduct(@CurrentPrincipal() principal: Principal, @Param('id') id: string) {
    return this.checkout.getProduct(principal, id);
  }
}
