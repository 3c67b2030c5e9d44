import { Module, type DynamicModule } from '@nestjs/common';
import type { Logger } from 'pino';
import { LOGGER } from './logger';

/** The process's pino logger as LOGGER, to every module of a Nest app (the gateway's). */
@Module({})
export class LoggerModule {
  static forRoot(logger: Logger): DynamicModule {
    return {
      module: LoggerModule,
      global: true,
      providers: [{ provide: LOGGER, useValue: logger }],
      exports: [LOGGER],
    };
  }
}
