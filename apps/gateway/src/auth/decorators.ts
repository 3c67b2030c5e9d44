import { createParamDecorator, SetMetadata, type ExecutionContext } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import type { CredentialKind, Principal } from './principal';

export const ROUTE_ACCESS = 'kessai:route-access';

/** Who may call a route. Default (no decorator): a secret-bearing app token. */
export type RouteAccess = 'open' | 'browser';

/** No credentials needed (heartbeat). */
export const Open = () => SetMetadata(ROUTE_ACCESS, 'open' satisfies RouteAccess);

/** Also callable with a secret-less app token from an Origin in the token's domains. */
export const BrowserAllowed = () => SetMetadata(ROUTE_ACCESS, 'browser' satisfies RouteAccess);

export const BEFORE_VERIFICATION = 'kessai:before-verification';

/**
 * Also answered to a live-mode app token of a merchant not verified yet (its onboarding data, who it
 * is); every other route refuses it with LIVE_MODE_NOT_ENABLED_WHEN_UNVERIFIED (decision 0049).
 */
export const BeforeVerification = () => SetMetadata(BEFORE_VERIFICATION, true);

export const ACCEPTED_CREDENTIALS = 'kessai:accepted-credentials';

/** Routes without @AcceptsCredentials take app tokens only. */
export const DEFAULT_CREDENTIALS: readonly CredentialKind[] = ['app_token'];

/** The kinds of credential a route (or controller) accepts, e.g. merchant users' login tokens. */
export const AcceptsCredentials = (...kinds: CredentialKind[]) => SetMetadata(ACCEPTED_CREDENTIALS, kinds);

/** The authenticated caller; the guard guarantees it is set on non-open routes. */
export const CurrentPrincipal = createParamDecorator((_data: unknown, ctx: ExecutionContext): Principal => {
  const principal = ctx.switchToHttp().getRequest<FastifyRequest>().principal;
  if (!principal) throw new Error('CurrentPrincipal used on a route without authentication');
  return principal;
});

/**
 * The caller and what the route's path names, for the routes served both merchant-wide and under a
 * store (`/x/:id` and `/stores/:storeId/x/:id`): `storeId` is null on a path without `:storeId`,
 * `id` the path's `:id` (empty on a path without one).
 */
export interface PathTarget {
  readonly principal: Principal;
  readonly storeId: string | null;
  readonly id: string;
}

/** A PathTarget on a route under `/stores/:storeId`, whose store the path always names. */
export interface StorePathTarget extends PathTarget {
  readonly storeId: string;
}

export const PathTarget = createParamDecorator((_data: unknown, ctx: ExecutionContext): PathTarget => {
  const request = ctx.switchToHttp().getRequest<FastifyRequest>();
  const principal = request.principal;
  if (!principal) throw new Error('PathTarget used on a route without authentication');
  const params = request.params as Partial<Record<string, string>>;
  return { principal, storeId: params.storeId ?? null, id: params.id ?? '' };
});
