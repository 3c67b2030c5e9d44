import { Body, Controller, Delete, Get, HttpCode, Param, Post, Query, Req } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { CurrentPrincipal } from '../auth/decorators';
import type { Principal } from '../auth/principal';
import { TestClocksService } from './test-clocks.service';

/** Test clocks (docs/subscriptions.md, "Test clocks"): raw HTTP only, the SDK has none. */
@Controller('test_clocks')
export class TestClocksController {
  constructor(private readonly clocks: TestClocksService) {}

  @Post()
  create(@CurrentPrincipal() principal: Principal, @Body() body: unknown) {
    return this.clocks.create(principal, body);
  }

  @Get()
  list(@CurrentPrincipal() principal: Principal, @Query() query: Record<string, unknown>) {
    return this.clocks.list(principal, query);
  }

  @Get(':id')
  get(@CurrentPrincipal() principal: Principal, @Param('id') id: string) {
    return this.clocks.get(principal, id);
  }

  @Post(':id/advance')
  @HttpCode(200)
  advance(@CurrentPrincipal() principal: Principal, @Param('id') id: string, @Body() body: unknown) {
    return this.clocks.advance(principal, id, body);
  }

  @Delete(':id')
  @HttpCode(204)
  async delete(
    @CurrentPrincipal() principal: Principal,
    @Param('id') id: string,
    @Req() request: FastifyRequest,
  ): Promise<void> {
    await this.clocks.delete(principal, id, { correlationId: request.id });
  }
}
