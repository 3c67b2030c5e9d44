import { Injectable } from '@nestjs/common';
import type { StoreLogo } from '../generated/prisma/client';
import { PrismaService } from '../prisma.service';

export type { StoreLogo };

/** A store's checkout logo (decision 0021): one per store, replaced whole. */
@Injectable()
export class StoreLogosRepository {
  constructor(private readonly prisma: PrismaService) {}

  put(storeId: string, logo: { contentType: string; image: Uint8Array; digest: string }): Promise<StoreLogo> {
    const data = { contentType: logo.contentType, image: Buffer.from(logo.image), digest: logo.digest };
    return this.prisma.storeLogo.upsert({ where: { storeId }, create: { storeId, ...data }, update: data });
  }

  /** true when there was one */
  async remove(storeId: string): Promise<boolean> {
    const { count } = await this.prisma.storeLogo.deleteMany({ where: { storeId } });
    return count > 0;
  }

  /** The logo of a store that is not deleted, if its digest is `digest` (an older URL finds nothing). */
  findServable(storeId: string, digest: string): Promise<StoreLogo | null> {
    return this.prisma.storeLogo.findFirst({ where: { storeId, digest, store: { deletedOn: null } } });
  }
}
