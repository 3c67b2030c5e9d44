import type { AccessScope } from '@kessai/db';

/** Who is calling: resolved from a verified, unrevoked app token. */
export interface Principal extends AccessScope {
  /** the credential that rate-limit buckets and Idempotency-Key records belong to */
  credentialId: string;
  scope: 'merchant' | 'store';
  mode: 'test' | 'live';
  domains: string[];
  /** false for `Bearer <jwt>`: public capabilities only, from an allowed Origin */
  hasSecret: boolean;
}

declare module 'fastify' {
  interface FastifyRequest {
    principal?: Principal;
    /** why the presented credentials were refused; raised only on routes that need them */
    authError?: Error;
  }
}
