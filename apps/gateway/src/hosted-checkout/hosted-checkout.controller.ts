import { Body, Controller, Get, Headers, Inject, Param, Post, Query, Req, Res } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { APP_CONFIG, type AppConfig } from '@kessai/config';
import { AcceptsCredentials, CurrentPrincipal, Open } from '../auth/decorators';
import type { Principal } from '../auth/principal';
import { publicBaseUrl } from '../http/public-base-url';
import { HostedPagesService } from './hosted-pages.service';
import { LinkPaymentsService } from './link-payments.service';

/**
 * The hosted checkout's pages and the calls its link page makes (docs/hosted-checkout.md):
 *
 * - GET /checkout/pay/{linkId}?secret=…: the link page (open: the secret is the credential);
 * - GET /checkout/frame?app_id=<jwt>: the widget's and inline form's frame (open; framable only by
 *   the app token's domains);
 * - GET /checkout/widget.js and /checkout/assets/{name}: the browser code and style;
 * - GET /checkout/logos/{storeId}/{digest}: a store's logo (open: the pages and SDK users show it);
 * - POST /checkout/links/{id}/payments and GET /checkout/links/{id}/payments/{kind}/{paymentId}: the
 *   link page's charge or subscription, with the link's own credentials only.
 */
@Controller('checkout')
export class HostedCheckoutController {
  constructor(
    private readonly pages: HostedPagesService,
    private readonly payments: LinkPaymentsService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  @Get('pay/:id')
  @Open()
  async linkPage(
    @Param('id') id: string,
    @Query() query: Record<string, unknown>,
    @Headers('accept-language') acceptLanguage: string | undefined,
    @Res() reply: FastifyReply,
  ) {
    const page = await this.pages.linkPage(id, query, acceptLanguage);
    return reply.status(page.status).headers(page.headers).send(page.html);
  }

  @Get('frame')
  @Open()
  async framePage(
    @Query() query: Record<string, unknown>,
    @Headers('accept-language') acceptLanguage: string | undefined,
    @Res() reply: FastifyReply,
  ) {
    const page = await this.pages.framePage(query, acceptLanguage);
    return reply.status(page.status).headers(page.headers).send(page.html);
  }

  @Get('widget.js')
  @Open()
  widget(@Res() reply: FastifyReply) {
    const asset = this.pages.asset('widget.js');
    return reply.status(200).headers(asset.headers).send(asset.body);
  }

  @Get('assets/:name')
  @Open()
  asset(@Param('name') name: string, @Res() reply: FastifyReply) {
    const asset = this.pages.asset(name);
    return reply.status(asset.status).headers(asset.headers).send(asset.body);
  }

  @Get('logos/:storeId/:digest')
  @Open()
  async logo(@Param('storeId') storeId: string, @Param('digest') digest: string, @Res() reply: FastifyReply) {
    const logo = await this.pages.logo(storeId, digest);
    return reply.status(logo.status).headers(logo.headers).send(logo.body);
  }

  @Post('links/:id/payments')
  @AcceptsCredentials('checkout_link')
  createPayment(
    @CurrentPrincipal() principal: Principal,
    @Param('id') id: string,
    @Body() body: unknown,
    @Req() request: FastifyRequest,
  ) {
    // the consumer comes back to this link's page, at the gateway's configured address (never one
    // taken from the request's Host or Origin in production)
    const baseUrl = publicBaseUrl(this.config, request);
    return this.payments.create(principal, id, body, baseUrl, { correlationId: request.id });
  }

  @Get('links/:id/payments/:kind/:paymentId')
  @AcceptsCredentials('checkout_link')
  getPayment(
    @CurrentPrincipal() principal: Principal,
    @Param('id') id: string,
    @Param('kind') kind: string,
    @Param('paymentId') paymentId: string,
    @Query('lang') lang: unknown,
  ) {
    return this.payments.get(principal, id, kind, paymentId, lang);
  }
}
