import { Body, Controller, Delete, Get, HttpCode, Param, Post, Query, Req } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { presentTestClock } from '@kessai/presenters';
import { TestClocksService } from '@kessai/subscriptions';
import { CurrentPrincipal } from '../auth/decorators';
import type { Principal } from '../auth/principal';
import { parsePageRequest, presentPage } from '../http/pagination';
import { parseInput } from '../http/validation';
import { advanceTestClockSchema, createTestClockSchema } from './test-clock.schemas';

/**
 * Test clocks (docs/subscriptions.md, "Test clocks"): raw HTTP only, the SDK has none. Test-mode
 * credentials only (TestClocksService.ownerOf, before anything else). The use cases are
 * libs/subscriptions' TestClocksService.
 */
@Controller('test_clocks')
export class TestClocksController {
  constructor(private readonly clocks: TestClocksService) {}

  @Post()
  async create(@CurrentPrincipal() principal: Principal, @Body() body: unknown) {
    const owner = this.clocks.ownerOf(principal);
    return presentTestClock(await this.clocks.create(owner, parseInput(createTestClockSchema, body)));
  }

  @Get()
  async list(@CurrentPrincipal() principal: Principal, @Query() query: Record<string, unknown>) {
    const owner = this.clocks.ownerOf(principal);
    const page = parsePageRequest(query);
    const { rows, totalHits } = await this.clocks.list(owner, page);
    return presentPage(rows, page, presentTestClock, totalHits);
  }

  @Get(':id')
  async get(@CurrentPrincipal() principal: Principal, @Param('id') id: string) {
    return presentTestClock(await this.clocks.find(this.clocks.ownerOf(principal), id));
  }

  /** Moves the clock to a later time (at most MAX_TEST_CLOCK_ADVANCE_MS ahead). */
  @Post(':id/advance')
  @HttpCode(200)
  async advance(@CurrentPrincipal() principal: Principal, @Param('id') id: string, @Body() body: unknown) {
    const owner = this.clocks.ownerOf(principal);
    const clock = await this.clocks.find(owner, id);
    const input = parseInput(advanceTestClockSchema, body);
    return presentTestClock(await this.clocks.advance(owner, clock, input));
  }

  /** Deletes the clock and cancels its subscriptions that are not final. */
  @Delete(':id')
  @HttpCode(204)
  async delete(
    @CurrentPrincipal() principal: Principal,
    @Param('id') id: string,
    @Req() request: FastifyRequest,
  ): Promise<void> {
    await this.clocks.delete(this.clocks.ownerOf(principal), id, { correlationId: request.id });
  }
}
