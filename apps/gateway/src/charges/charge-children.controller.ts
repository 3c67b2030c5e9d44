import { Body, Get, Param, Patch, Post, Query, Req, Res } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AppConfig } from '@kessai/config';
import type { AccessScope } from '@kessai/db';
import type { PageRequest } from '@kessai/domain';
import type { Correlation } from '@kessai/observability';
import type { ChargeScope } from '@kessai/payments';
import type { ZodType, ZodTypeDef } from 'zod';
import { CurrentPrincipal } from '../auth/decorators';
import { chargeScopeOf } from '../auth/path-scope';
import type { Principal } from '../auth/principal';
import { parsePageRequest, presentPage } from '../http/pagination';
import { pollingOf, readPolling } from '../http/polling';
import { parseInput } from '../http/validation';

/** What the routes of a charge's refunds or cancels call: libs/payments' RefundsService, CancelsService. */
export interface ChargeChildren<T, Input> {
  create(scope: ChargeScope, chargeId: string, input: Input, correlation: Correlation): Promise<T>;
  find(scope: AccessScope, chargeId: string, id: string): Promise<T>;
  /** the status alone, for a polling read; null when there is none */
  status(id: string): Promise<string | null>;
}

/**
 * The routes of a charge's refunds or cancels, under /stores/{storeId}/charges/{chargeId}/…
 * (api-reference §5.4, §5.5): create, list, get (`polling=true` waits while pending), change. The
 * path's store and charge are the scope (a malformed or foreign id is a 404); each subclass names
 * its path, its use cases, its create schema and its presenter, and lists and changes its own way.
 * Credential checks and the OpenAPI document read these handlers through the subclass
 * (http/route-handlers.ts).
 */
export abstract class ChargeChildrenController<T extends { status: string }, Input, View> {
  protected constructor(
    private readonly children: ChargeChildren<T, Input>,
    private readonly createSchema: ZodType<Input, ZodTypeDef, unknown>,
    private readonly present: (row: T) => View,
    private readonly config: AppConfig,
  ) {}

  /** A page of the charge's refunds or cancels, with total_hits where they are counted. */
  protected abstract listOf(
    scope: AccessScope,
    chargeId: string,
    page: PageRequest,
  ): Promise<{ rows: T[]; totalHits: number | null }>;

  /** PATCH: `current` as read before the body (an unknown one is a 404 whatever the body says). */
  protected abstract change(scope: AccessScope, chargeId: string, current: T, body: unknown): Promise<T>;

  @Post()
  async create(
    @CurrentPrincipal() principal: Principal,
    @Param('storeId') storeId: string,
    @Param('chargeId') chargeId: string,
    @Body() body: unknown,
    @Req() request: FastifyRequest,
  ): Promise<View> {
    const scope = chargeScopeOf(principal, storeId, chargeId);
    const input = parseInput(this.createSchema, body);
    return this.present(await this.children.create(scope, chargeId, input, { correlationId: request.id }));
  }

  @Get()
  async list(
    @CurrentPrincipal() principal: Principal,
    @Param('storeId') storeId: string,
    @Param('chargeId') chargeId: string,
    @Query() query: Record<string, unknown>,
  ) {
    const page = parsePageRequest(query);
    const scope = chargeScopeOf(principal, storeId, chargeId);
    const { rows, totalHits } = await this.listOf(scope, chargeId, page);
    return presentPage(rows, page, this.present, totalHits);
  }

  /** With `polling=true` a pending one is re-read until it ends, at most CHARGE_POLLING_MAX_WAIT_MS. */
  @Get(':id')
  async get(
    @CurrentPrincipal() principal: Principal,
    @Param('storeId') storeId: string,
    @Param('chargeId') chargeId: string,
    @Param('id') id: string,
    @Query() query: Record<string, unknown>,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<View> {
    const polling = pollingOf(query, reply, this.config.CHARGE_POLLING_MAX_WAIT_MS);
    const scope = chargeScopeOf(principal, storeId, chargeId);
    const found = await readPolling(
      () => this.children.find(scope, chargeId, id),
      () => this.children.status(id),
      polling,
    );
    return this.present(found);
  }

  @Patch(':id')
  async update(
    @CurrentPrincipal() principal: Principal,
    @Param('storeId') storeId: string,
    @Param('chargeId') chargeId: string,
    @Param('id') id: string,
    @Body() body: unknown,
  ): Promise<View> {
    const scope = chargeScopeOf(principal, storeId, chargeId);
    const current = await this.children.find(scope, chargeId, id);
    return this.present(await this.change(scope, chargeId, current, body));
  }
}
