import { Global, Module } from '@nestjs/common';
import { PrismaService } from './prisma.service';
import { AppTokensRepository } from './repositories/app-tokens.repository';
import { MerchantsRepository } from './repositories/merchants.repository';
import { StoresRepository } from './repositories/stores.repository';

const repositories = [MerchantsRepository, StoresRepository, AppTokensRepository];

@Global()
@Module({ providers: [PrismaService, ...repositories], exports: [PrismaService, ...repositories] })
export class DbModule {}
