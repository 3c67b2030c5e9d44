import type { FastifyInstance } from 'fastify';
import type { GatewayMetrics } from './gateway-metrics';

/**
 * Counts and times every answered request (onResponse: after the answer was sent, whatever it
 * was: success, error envelope, 429, a replay). The route label is the router's pattern.
 */
export function registerHttpMetrics(fastify: FastifyInstance, metrics: GatewayMetrics): void {
  fastify.addHook('onResponse', async (request, reply) => {
    metrics.requestAnswered(request.method, request.routeOptions.url, reply.statusCode, reply.elapsedTime);
  });
}
