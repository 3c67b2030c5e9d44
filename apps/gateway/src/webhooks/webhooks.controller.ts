import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query, Req } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { CurrentPrincipal } from '../auth/decorators';
import type { Principal } from '../auth/principal';
import { WebhooksService } from './webhooks.service';

/**
 * Webhooks (api-reference §5.10), the SDK's webHooks.create/get/list/update/delete: a store's with
 * the store prefix, the merchant's own without.
 */
@Controller()
export class WebhooksController {
  constructor(private readonly webhooks: WebhooksService) {}

  @Post('webhooks')
  createMerchantWebhook(@CurrentPrincipal() principal: Principal, @Body() body: unknown) {
    return this.webhooks.create(principal, null, body);
  }

  @Get('webhooks')
  listMerchantWebhooks(@CurrentPrincipal() principal: Principal, @Query() query: Record<string, unknown>) {
    return this.webhooks.list(principal, null, query);
  }

  @Get('webhooks/:id')
  getMerchantWebhook(@CurrentPrincipal() principal: Principal, @Param('id') id: string) {
    return this.webhooks.get(principal, null, id);
  }

  @Get('webhooks/:id/events')
  listMerchantWebhookDeliveries(
    @CurrentPrincipal() principal: Principal,
    @Param('id') id: string,
    @Query() query: Record<string, unknown>,
  ) {
    return this.webhooks.listDeliveries(principal, null, id, query);
  }

  @Post('webhooks/:id/events/:deliveryId/replay')
  @HttpCode(202)
  replayMerchantWebhookDelivery(
    @CurrentPrincipal() principal: Principal,
    @Param('id') id: string,
    @Param('deliveryId') deliveryId: string,
    @Req() request: FastifyRequest,
  ) {
    return this.webhooks.replayDelivery(principal, null, id, deliveryId, { correlationId: request.id });
  }

  @Post('webhooks/:id/rotate_secret')
  @HttpCode(200)
  rotateMerchantWebhookSecret(@CurrentPrincipal() principal: Principal, @Param('id') id: string) {
    return this.webhooks.rotateSecret(principal, null, id);
  }

  @Patch('webhooks/:id')
  updateMerchantWebhook(
    @CurrentPrincipal() principal: Principal,
    @Param('id') id: string,
    @Body() body: unknown,
  ) {
    return this.webhooks.update(principal, null, id, body);
  }

  @Delete('webhooks/:id')
  @HttpCode(204)
  deleteMerchantWebhook(@CurrentPrincipal() principal: Principal, @Param('id') id: string) {
    return this.webhooks.delete(principal, null, id);
  }

  @Post('stores/:storeId/webhooks')
  createStoreWebhook(
    @CurrentPrincipal() principal: Principal,
    @Param('storeId') storeId: string,
    @Body() body: unknown,
  ) {
    return this.webhooks.create(principal, storeId, body);
  }

  @Get('stores/:storeId/webhooks')
  listStoreWebhooks(
    @CurrentPrincipal() principal: Principal,
    @Param('storeId') storeId: string,
    @Query() query: Record<string, unknown>,
  ) {
    return this.webhooks.list(principal, storeId, query);
  }

  @Get('stores/:storeId/webhooks/:id')
  getStoreWebhook(
    @CurrentPrincipal() principal: Principal,
    @Param('storeId') storeId: string,
    @Param('id') id: string,
  ) {
    return this.webhooks.get(principal, storeId, id);
  }

  @Get('stores/:storeId/webhooks/:id/events')
  listStoreWebhookDeliveries(
    @CurrentPrincipal() principal: Principal,
    @Param('storeId') storeId: string,
    @Param('id') id: string,
    @Query() query: Record<string, unknown>,
  ) {
    return this.webhooks.listDeliveries(principal, storeId, id, query);
  }

  @Post('stores/:storeId/webhooks/:id/events/:deliveryId/replay')
  @HttpCode(202)
  replayStoreWebhookDelivery(
    @CurrentPrincipal() principal: Principal,
    @Param('storeId') storeId: string,
    @Param('id') id: string,
    @Param('deliveryId') deliveryId: string,
    @Req() request: FastifyRequest,
  ) {
    return this.webhooks.replayDelivery(principal, storeId, id, deliveryId, { correlationId: request.id });
  }

  @Post('stores/:storeId/webhooks/:id/rotate_secret')
  @HttpCode(200)
  rotateStoreWebhookSecret(
    @CurrentPrincipal() principal: Principal,
    @Param('storeId') storeId: string,
    @Param('id') id: string,
  ) {
    return this.webhooks.rotateSecret(principal, storeId, id);
  }

  @Patch('stores/:storeId/webhooks/:id')
  updateStoreWebhook(
    @CurrentPrincipal() principal: Principal,
    @Param('storeId') storeId: string,
    @Param('id') id: string,
    @Body() body: unknown,
  ) {
    return this.webhooks.update(principal, storeId, id, body);
  }

  @Delete('stores/:storeId/webhooks/:id')
  @HttpCode(204)
  deleteStoreWebhook(
    @CurrentPrincipal() principal: Principal,
    @Param('storeId') storeId: string,
    @Param('id') id: string,
  ) {
    return this.webhooks.delete(principal, storeId, id);
  }
}
