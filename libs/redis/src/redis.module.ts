import { Global, Module } from '@nestjs/common';
import { RedisService } from './redis.service';

/** The process's one Redis connection for commands (RedisService), for every module of the app. */
@Global()
@Module({ providers: [RedisService], exports: [RedisService] })
export class RedisModule {}
