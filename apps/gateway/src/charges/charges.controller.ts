import { Body, Controller, Get, HttpCode, Param, Patch, Post, Query, Req, Res } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { PermissionError } from '@kessai/domain';
import { CurrentPrincipal } from '../auth/decorators';
import type { Principal } from '../auth/principal';
import { ChargeExpiryService } from './charge-expiry.service';
import { ChargesService } from './charges.service';

/**
 * Charges (api-reference §5.2). POST /charges takes its store from the app token; the other routes
 * read within the path's store, or the caller's scope for /charges and /charges/{id}. All need a
 * secret-bearing app token.
 */
@Controller()
export class ChargesController {
  constructor(
    private readonly charges: ChargesService,
    private readonly expiries: ChargeExpiryService,
  ) {}

  @Post('charges')
  create(@CurrentPrincipal() principal: Principal, @Body() body: unknown, @Req() request: FastifyRequest) {
    return this.charges.create(principal, body, { correlationId: request.id });
  }

  @Get('charges')
  list(@CurrentPrincipal() principal: Principal, @Query() query: Record<string, unknown>) {
    return this.charges.list(principal, null, query);
  }

  @Get('stores/:storeId/charges')
  listForStore(
    @CurrentPrincipal() principal: Principal,
    @Param('storeId') storeId: string,
    @Query() query: Record<string, unknown>,
  ) {
    return this.charges.list(principal, storeId, query);
  }

  @Get('charges/:id')
  get(
    @CurrentPrincipal() principal: Principal,
    @Param('id') id: string,
    @Query() query: Record<string, unknown>,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    return this.charges.get(principal, null, id, query, closeSignal(reply));
  }

  @Get('stores/:storeId/charges/:id')
  getInStore(
    @CurrentPrincipal() principal: Principal,
    @Param('storeId') storeId: string,
    @Param('id') id: string,
    @Query() query: Record<string, unknown>,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    return this.charges.get(principal, storeId, id, query, closeSignal(reply));
  }

  @Patch('stores/:storeId/charges/:id')
  update(
    @CurrentPrincipal() principal: Principal,
    @Param('storeId') storeId: string,
    @Param('id') id: string,
    @Body() body: unknown,
  ) {
    return this.charges.update(principal, storeId, id, body);
  }

  /** The SDK's captures.create: answers 200 `{}` (api-reference §5.2). */
  @Post('stores/:storeId/charges/:id/capture')
  @HttpCode(200)
  capture(
    @CurrentPrincipal() principal: Principal,
    @Param('storeId') storeId: string,
    @Param('id') id: string,
    @Body() body: unknown,
    @Req() request: FastifyRequest,
  ) {
    return this.charges.capture(principal, storeId, id, body, { correlationId: request.id });
  }

  @Get('stores/:storeId/charges/:id/issuer_token')
  issuerToken(
    @CurrentPrincipal() principal: Principal,
    @Param('storeId') storeId: string,
    @Param('id') id: string,
  ) {
    return this.charges.issuerToken(principal, storeId, id);
  }

  /** The SDK's charges.expiry: a bank-transfer or konbini charge's payment deadline. */
  @Get('stores/:storeId/charges/:id/expiry/latest')
  expiry(
    @CurrentPrincipal() principal: Principal,
    @Param('storeId') storeId: string,
    @Param('id') id: string,
  ) {
    return this.expiries.latest(principal, storeId, id);
  }

  /** Extends that deadline (docs/decisions/0014-bank-transfer-expiry-and-matching.md); answers the new one. */
  @Post('stores/:storeId/charges/:id/expiry')
  @HttpCode(200)
  extendExpiry(
    @CurrentPrincipal() principal: Principal,
    @Param('storeId') storeId: string,
    @Param('id') id: string,
    @Body() body: unknown,
  ) {
    return this.expiries.extend(principal, storeId, id, body);
  }

  /**
   * A bank-transfer charge's virtual-account ledger: the payment asked for, then each transfer. A
   * merchant token's, as the reference says ([A]: bank-transfer ledgers need a merchant token); a
   * store token gets 403.
   */
  @Get('stores/:storeId/charges/:id/bank_transfer_ledgers')
  bankTransferLedgers(
    @CurrentPrincipal() principal: Principal,
    @Param('storeId') storeId: string,
    @Param('id') id: string,
  ) {
    if (principal.storeId !== null) throw new PermissionError('INVALID_PERMISSIONS');
    return this.expiries.ledgers(principal, storeId, id);
  }

  @Get('stores/:storeId/charges/:id/three_ds/issuer_token')
  threeDsIssuerToken(
    @CurrentPrincipal() principal: Principal,
    @Param('storeId') storeId: string,
    @Param('id') id: string,
  ) {
    return this.charges.threeDsIssuerToken(principal, storeId, id);
  }
}

/** Aborted when the connection closes before the answer is sent (a polling client that gave up). */
function closeSignal(reply: FastifyReply): AbortSignal {
  const controller = new AbortController();
  reply.raw.once('close', () => controller.abort());
  return controller.signal;
}
