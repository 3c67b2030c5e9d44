import path from 'node:path';
import { defineConfig } from 'prisma/config';
import { MigrationAdapterFactory } from './prisma/migration-adapter';

// Migrations run through Prisma's JavaScript schema engine (no engine binary is downloaded).
export default defineConfig({
  engine: 'js',
  experimental: { adapter: true },
  schema: path.join('prisma', 'schema.prisma'),
  migrations: { path: path.join('prisma', 'migrations') },
  adapter: () => {
    const url = process.env.DATABASE_URL;
    if (!url) return Promise.reject(new Error('DATABASE_URL is not set'));
    return Promise.resolve(new MigrationAdapterFactory(url));
  },
});
