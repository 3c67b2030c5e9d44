import { Body, Controller, HttpCode, Post, Req } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { PasswordResetService } from '@kessai/accounts';
import { Open } from '../auth/decorators';
import { parseInput } from '../http/validation';
import { resetConfirmation, resetRequest } from './account.schemas';

/**
 * Password resets. The token travels in the body, never in the path, so that it does not end up in
 * access logs or the rate limiter's keys.
 */
@Controller('password_resets')
export class PasswordResetsController {
  constructor(private readonly resets: PasswordResetService) {}

  /**
   * 202 whether or not the address has an account and whatever its merchant's quota, answered
   * before the request is carried out (alike in time too); the token is delivered out of band.
   */
  @Open()
  @Post()
  @HttpCode(202)
  request(@Body() body: unknown, @Req() request: FastifyRequest) {
    const { email } = parseInput(resetRequest, body);
    this.resets.accept(email, { correlationId: request.id });
    return {};
  }

  @Open()
  @Post('confirm')
  @HttpCode(204)
  async confirm(@Body() body: unknown) {
    const { token, password } = parseInput(resetConfirmation, body);
    await this.resets.confirm(token, password);
  }
}
