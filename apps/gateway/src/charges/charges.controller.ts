import { Body, Controller, Get, HttpCode, Inject, Patch, Post, Query, Req, Res } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { APP_CONFIG, type AppConfig } from '@kessai/config';
import { PermissionError } from '@kessai/domain';
import { ChargeExpiryService, ChargesService, checkExpiryExtension } from '@kessai/payments';
import {
  presentBankTransferLedgers,
  presentCharge,
  presentChargeExpiry,
  presentIssuerToken,
  presentThreeDsIssuerToken,
} from '@kessai/presenters';
import { CurrentPrincipal, PathTarget, type StorePathTarget } from '../auth/decorators';
import { chargeScopeOf, storeScopeOf, tokenStoreOf } from '../auth/path-scope';
import type { Principal } from '../auth/principal';
import { pollingOf, readPolling, type PollingOptions } from '../http/polling';
import { parseInput } from '../http/validation';
import { listChargesFor } from './charge-list';
import { captureSchema, createChargeSchema, extendExpirySchema, updateChargeSchema } from './charge.schemas';

/**
 * Charges (api-reference §5.2). POST /charges takes its store from the app token; the other routes
 * read within the path's store, or the caller's scope for /charges and /charges/{id}. All need a
 * secret-bearing app token. The use cases are libs/payments' ChargesService.
 */
@Controller()
export class ChargesController {
  constructor(
    private readonly charges: ChargesService,
    private readonly expiries: ChargeExpiryService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  @Post('charges')
  async create(
    @CurrentPrincipal() principal: Principal,
    @Body() body: unknown,
    @Req() request: FastifyRequest,
  ) {
    const actor = tokenStoreOf(principal);
    const charge = await this.charges.create(actor, parseInput(createChargeSchema, body), {
      correlationId: request.id,
    });
    return presentCharge(charge);
  }

  @Get('charges')
  list(@PathTarget() { principal, storeId }: PathTarget, @Query() query: Record<string, unknown>) {
    return this.#list(principal, storeId, query);
  }

  @Get('stores/:storeId/charges')
  listForStore(@PathTarget() { principal, storeId }: PathTarget, @Query() query: Record<string, unknown>) {
    return this.#list(principal, storeId, query);
  }

  @Get('charges/:id')
  get(
    @PathTarget() { principal, id }: PathTarget,
    @Query() query: Record<string, unknown>,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    return this.#get(principal, null, id, this.#pollingOf(query, reply));
  }

  @Get('stores/:storeId/charges/:id')
  getInStore(
    @PathTarget() { principal, storeId, id }: StorePathTarget,
    @Query() query: Record<string, unknown>,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    return this.#get(principal, storeId, id, this.#pollingOf(query, reply));
  }

  /** PATCH: metadata only, replaced whole. */
  @Patch('stores/:storeId/charges/:id')
  async update(@PathTarget() { principal, storeId, id }: StorePathTarget, @Body() body: unknown) {
    const scope = storeScopeOf(principal, storeId, 'charge');
    const charge = await this.charges.find(scope, id);
    const { metadata } = parseInput(updateChargeSchema, body);
    return presentCharge(await this.charges.updateMetadata(scope, charge, metadata));
  }

  /**
   * The SDK's captures.create: answers 200 with the capture asked for, `{amount, currency}` (the
   * SDK's CaptureItem; UnivaPay answers `{}`, which the SDK's type does not allow).
   */
  @Post('stores/:storeId/charges/:id/capture')
  @HttpCode(200)
  async capture(
    @PathTarget() { principal, storeId, id }: StorePathTarget,
    @Body() body: unknown,
    @Req() request: FastifyRequest,
  ) {
    const charge = await this.charges.find(storeScopeOf(principal, storeId, 'charge'), id);
    const input = parseInput(captureSchema, body);
    await this.charges.capture(charge, input, { correlationId: request.id });
    return { amount: input.amount, currency: input.currency };
  }

  @Get('stores/:storeId/charges/:id/issuer_token')
  async issuerToken(@PathTarget() { principal, storeId, id }: StorePathTarget) {
    const charge = await this.charges.issuerToken(storeScopeOf(principal, storeId, 'charge'), id);
    return presentIssuerToken(charge, charge.issuerToken);
  }

  /** The SDK's charges.expiry: a bank-transfer or konbini charge's payment deadline. */
  @Get('stores/:storeId/charges/:id/expiry/latest')
  async expiry(@PathTarget() { principal, storeId, id }: StorePathTarget) {
    return presentChargeExpiry(await this.expiries.latest(chargeScopeOf(principal, storeId, id), id));
  }

  /** Extends that deadline (docs/decisions/0014-bank-transfer-expiry-and-matching.md); answers the new one. */
  @Post('stores/:storeId/charges/:id/expiry')
  @HttpCode(200)
  async extendExpiry(@PathTarget() { principal, storeId, id }: StorePathTarget, @Body() body: unknown) {
    const input = parseInput(extendExpirySchema, body);
    // the period's own refusal comes before the path's 404, as it always did
    checkExpiryExtension(input);
    const extended = await this.expiries.extend(chargeScopeOf(principal, storeId, id), id, input);
    return presentChargeExpiry(extended);
  }

  /**
   * A bank-transfer charge's virtual-account ledger: the payment asked for, then each transfer. A
   * merchant token's, as the reference says ([A]: bank-transfer ledgers need a merchant token); a
   * store token gets 403.
   */
  @Get('stores/:storeId/charges/:id/bank_transfer_ledgers')
  async bankTransferLedgers(@PathTarget() { principal, storeId, id }: StorePathTarget) {
    if (principal.storeId !== null) throw new PermissionError('INVALID_PERMISSIONS');
    return presentBankTransferLedgers(await this.expiries.ledgers(chargeScopeOf(principal, storeId, id), id));
  }

  @Get('stores/:storeId/charges/:id/three_ds/issuer_token')
  async threeDsIssuerToken(@PathTarget() { principal, storeId, id }: StorePathTarget) {
    const charge = await this.charges.threeDsIssuerToken(storeScopeOf(principal, storeId, 'charge'), id);
    return presentThreeDsIssuerToken(charge, charge.threeDsIssuerToken);
  }

  /**
   * `storeId` from the path, or null for GET /charges/{id}. With `polling=true` a pending charge is
   * re-read until its status changes, at most CHARGE_POLLING_MAX_WAIT_MS (or until the client goes
   * away); the answer is then the charge as it is, pending or not.
   */
  async #get(principal: Principal, storeId: string | null, id: string, polling: PollingOptions) {
    const scope = storeScopeOf(principal, storeId, 'charge');
    const charge = await readPolling(
      () => this.charges.find(scope, id),
      () => this.charges.status(id),
      polling,
    );
    return presentCharge(charge);
  }

  #pollingOf(query: Record<string, unknown>, reply: FastifyReply): PollingOptions {
    return pollingOf(query, reply, this.config.CHARGE_POLLING_MAX_WAIT_MS);
  }

  /** `storeId` from the path, or null for GET /charges (a store token's own store, a merchant's all). */
  #list(principal: Principal, storeId: string | null, query: Record<string, unknown>) {
    return listChargesFor(this.charges, storeScopeOf(principal, storeId, 'charge'), storeId, query);
  }
}
