import { RequestMethod, type Type } from '@nestjs/common';
import { METHOD_METADATA, PATH_METADATA } from '@nestjs/common/constants';
import type { FastifyInstance } from 'fastify';
import { AuthenticationError, DomainError } from '@kessai/domain';
import { sendError } from '../http/error-response';
import { handlerNamesOf } from '../http/route-handlers';
import { ROUTE_ACCESS, type RouteAccess } from './decorators';

/**
 * Whether each route of `controllers` needs credentials, keyed `METHOD /path/:param` as Fastify
 * names its routes: false for @Open() routes (method or controller), true for every other one.
 */
export function credentialRoutes(controllers: readonly Type[]): Map<string, boolean> {
  const table = new Map<string, boolean>();
  for (const controller of controllers) {
    const base = (Reflect.getMetadata(PATH_METADATA, controller) as string | undefined) ?? '';
    const controllerAccess = Reflect.getMetadata(ROUTE_ACCESS, controller) as RouteAccess | undefined;
    const prototype = controller.prototype as Record<string, unknown>;
    for (const name of handlerNamesOf(controller)) {
      const handler = prototype[name];
      if (typeof handler !== 'function') continue;
      const paths = Reflect.getMetadata(PATH_METADATA, handler) as string | string[] | undefined;
      const method = Reflect.getMetadata(METHOD_METADATA, handler) as RequestMethod | undefined;
      if (paths === undefined || method === undefined) continue;
      const access =
        (Reflect.getMetadata(ROUTE_ACCESS, handler) as RouteAccess | undefined) ?? controllerAccess;
      for (const path of Array.isArray(paths) ? paths : [paths]) {
        const url = `/${[base, path]
          .flatMap((part) => part.split('/'))
          .filter((part) => part.length > 0)
          .join('/')}`;
        table.set(`${RequestMethod[method]} ${url}`, access !== 'open');
      }
    }
  }
  return table;
}

/**
 * Refuses a request to a route that needs credentials, when it has none or they were refused,
 * in `onRequest`: before Fastify reads its body, so that nobody without a credential costs the
 * gateway more than reading headers (a flood of large or deep bodies went as far as the JSON
 * parser before). The answer is the one the AuthGuard gives, which stays the authority: the
 * guard still judges the credential's kind, secret and Origin against the route. A route this
 * table does not know (not the controllers') is left to its own rules; a refusal that is no
 * domain error (a dependency failed while checking) is left to the guard's 500.
 * Register after the rate limiter: such requests are still counted against their client's IP.
 */
export function registerCredentialCheck(
  fastify: FastifyInstance,
  needsCredentials: Map<string, boolean>,
): void {
  fastify.addHook('onRequest', async (request, reply) => {
    const url = request.routeOptions.url;
    if (url === undefined) return;
    const method = request.method === 'HEAD' ? 'GET' : request.method;
    if (needsCredentials.get(`${method} ${url}`) !== true) return;
    if (request.authError instanceof DomainError) return sendError(reply, request.authError);
    if (!request.principal && !request.authError)
      return sendError(reply, new AuthenticationError('AUTH_HEADER_MISSING'));
  });
}
