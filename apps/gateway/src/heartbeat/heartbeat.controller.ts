import { Controller, Get } from '@nestjs/common';
import { Open } from '../auth/decorators';

/** The SDK's ping(): any 2xx passes. Answers without touching the database. */
@Controller()
export class HeartbeatController {
  @Get('heartbeat')
  @Open()
  heartbeat() {
    return { status: 'ok' };
  }
}
