import { Injectable } from '@nestjs/common';
import { PrismaService } from './prisma.service';

/** Whether Postgres answers, for health checks outside libs/db. */
@Injectable()
export class DatabaseHealth {
  constructor(private readonly prisma: PrismaService) {}

  isHealthy(): Promise<boolean> {
    return this.prisma.isHealthy();
  }
}
