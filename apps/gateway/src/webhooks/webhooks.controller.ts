import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query, Req } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { parsePageRequest, presentPage } from '../http/pagination';
import { WebhooksService } from '@kessai/webhooks';
import { CurrentPrincipal, PathTarget, type StorePathTarget } from '../auth/decorators';
import type { Principal } from '../auth/principal';
import { parseInput } from '../http/validation';
import {
  presentCreatedWebhook,
  presentDelivery,
  presentWebhook,
  presentWebhookListItem,
} from './webhook.presenter';
import { createWebhookSchema, updateWebhookSchema } from './webhook.schemas';

/**
 * Webhooks (api-reference §5.10), the SDK's webHooks.create/get/list/update/delete: a store's with
 * the store prefix, the merchant's own without. The use cases are libs/webhooks' WebhooksService;
 * each route resolves whose webhooks it addresses (WebhooksService.ownerOf) before its body.
 */
@Controller()
export class WebhooksController {
  constructor(private readonly webhooks: WebhooksService) {}

  @Post('webhooks')
  createMerchantWebhook(@CurrentPrincipal() principal: Principal, @Body() body: unknown) {
    return this.#create(principal, null, body);
  }

  @Get('webhooks')
  listMerchantWebhooks(@CurrentPrincipal() principal: Principal, @Query() query: Record<string, unknown>) {
    return this.#list(principal, null, query);
  }

  @Get('webhooks/:id')
  getMerchantWebhook(@PathTarget() { principal, id }: PathTarget) {
    return this.#get(principal, null, id);
  }

  @Get('webhooks/:id/events')
  listMerchantWebhookDeliveries(
    @PathTarget() { principal, id }: PathTarget,
    @Query() query: Record<string, unknown>,
  ) {
    return this.#listDeliveries(principal, null, id, query);
  }

  @Post('webhooks/:id/events/:deliveryId/replay')
  @HttpCode(202)
  replayMerchantWebhookDelivery(
    @PathTarget() { principal, id }: PathTarget,
    @Param('deliveryId') deliveryId: string,
    @Req() request: FastifyRequest,
  ) {
    return this.#replayDelivery(principal, null, id, deliveryId, { correlationId: request.id });
  }

  @Post('webhooks/:id/rotate_secret')
  @HttpCode(200)
  rotateMerchantWebhookSecret(@PathTarget() { principal, id }: PathTarget) {
    return this.#rotateSecret(principal, null, id);
  }

  @Patch('webhooks/:id')
  updateMerchantWebhook(@PathTarget() { principal, id }: PathTarget, @Body() body: unknown) {
    return this.#update(principal, null, id, body);
  }

  @Delete('webhooks/:id')
  @HttpCode(204)
  deleteMerchantWebhook(@PathTarget() { principal, id }: PathTarget) {
    return this.#delete(principal, null, id);
  }

  @Post('stores/:storeId/webhooks')
  createStoreWebhook(@PathTarget() { principal, storeId }: StorePathTarget, @Body() body: unknown) {
    return this.#create(principal, storeId, body);
  }

  @Get('stores/:storeId/webhooks')
  listStoreWebhooks(
    @PathTarget() { principal, storeId }: StorePathTarget,
    @Query() query: Record<string, unknown>,
  ) {
    return this.#list(principal, storeId, query);
  }

  @Get('stores/:storeId/webhooks/:id')
  getStoreWebhook(@PathTarget() { principal, storeId, id }: StorePathTarget) {
    return this.#get(principal, storeId, id);
  }

  @Get('stores/:storeId/webhooks/:id/events')
  listStoreWebhookDeliveries(
    @PathTarget() { principal, storeId, id }: StorePathTarget,
    @Query() query: Record<string, unknown>,
  ) {
    return this.#listDeliveries(principal, storeId, id, query);
  }

  @Post('stores/:storeId/webhooks/:id/events/:deliveryId/replay')
  @HttpCode(202)
  replayStoreWebhookDelivery(
    @PathTarget() { principal, storeId, id }: StorePathTarget,
    @Param('deliveryId') deliveryId: string,
    @Req() request: FastifyRequest,
  ) {
    return this.#replayDelivery(principal, storeId, id, deliveryId, { correlationId: request.id });
  }

  @Post('stores/:storeId/webhooks/:id/rotate_secret')
  @HttpCode(200)
  rotateStoreWebhookSecret(@PathTarget() { principal, storeId, id }: StorePathTarget) {
    return this.#rotateSecret(principal, storeId, id);
  }

  @Patch('stores/:storeId/webhooks/:id')
  updateStoreWebhook(@PathTarget() { principal, storeId, id }: StorePathTarget, @Body() body: unknown) {
    return this.#update(principal, storeId, id, body);
  }

  @Delete('stores/:storeId/webhooks/:id')
  @HttpCode(204)
  deleteStoreWebhook(@PathTarget() { principal, storeId, id }: StorePathTarget) {
    return this.#delete(principal, storeId, id);
  }

  async #create(principal: Principal, storeId: string | null, body: unknown) {
    const owner = await this.webhooks.ownerOf(principal, storeId);
    const input = parseInput(createWebhookSchema, body);
    return presentCreatedWebhook(await this.webhooks.create(owner, principal.mode, input));
  }

  async #list(principal: Principal, storeId: string | null, query: Record<string, unknown>) {
    const page = parsePageRequest(query);
    const owner = await this.webhooks.ownerOf(principal, storeId);
    return presentPage(await this.webhooks.list(owner, page), page, presentWebhookListItem);
  }

  async #get(principal: Principal, storeId: string | null, id: string) {
    const owner = await this.webhooks.ownerOf(principal, storeId);
    return presentWebhook(await this.webhooks.find(owner, id));
  }

  /** The webhook's delivery log: its deliveries, newest first, each with its tries. */
  async #listDeliveries(
    principal: Principal,
    storeId: string | null,
    id: string,
    query: Record<string, unknown>,
  ) {
    const page = parsePageRequest(query);
    const owner = await this.webhooks.ownerOf(principal, storeId);
    return presentPage(await this.webhooks.listDeliveries(owner, id, page), page, presentDelivery);
  }

  /**
   * One more try of a delivery, now (same delivery, same webhook-id, a new try): 202 with the
   * delivery, pending. An inactive webhook's delivery is refused (409): it would not be sent.
   */
  async #replayDelivery(
    principal: Principal,
    storeId: string | null,
    id: string,
    deliveryId: string,
    correlation: { correlationId: string },
  ) {
    const owner = await this.webhooks.ownerOf(principal, storeId);
    return presentDelivery(await this.webhooks.replayDelivery(owner, id, deliveryId, correlation));
  }

  /**
   * A new signing secret, in this answer only (`signing_secret`); the old one keeps signing
   * deliveries for WEBHOOK_SECRET_OVERLAP_SECONDS, so a receiver switches without missing one.
   */
  async #rotateSecret(principal: Principal, storeId: string | null, id: string) {
    const owner = await this.webhooks.ownerOf(principal, storeId);
    return presentCreatedWebhook(await this.webhooks.rotateSecret(owner, id));
  }

  async #update(principal: Principal, storeId: string | null, id: string, body: unknown) {
    const owner = await this.webhooks.ownerOf(principal, storeId);
    const current = await this.webhooks.find(owner, id);
    const input = parseInput(updateWebhookSchema, body);
    return presentWebhook(await this.webhooks.update(owner, principal.mode, current, input));
  }

  async #delete(principal: Principal, storeId: string | null, id: string): Promise<void> {
    await this.webhooks.delete(await this.webhooks.ownerOf(principal, storeId), id);
  }
}
