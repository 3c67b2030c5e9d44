import FindMyWay, { type HTTPVersion, type Instance } from 'find-my-way';

const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const;

/**
 * Remembers every registered route so that a request whose path exists under another method can be
 * answered 405 with an Allow header, instead of Fastify's plain 404.
 */
export class RouteRegistry {
  private readonly router: Instance<HTTPVersion.V1> = FindMyWay({ ignoreTrailingSlash: true });
  private readonly seen = new Set<string>();

  add(method: string | string[], url: string): void {
    for (const m of Array.isArray(method) ? method : [method]) {
      const key = `${m} ${url}`;
      if (this.seen.has(key)) continue;
      this.seen.add(key);
      this.router.on(m as (typeof METHODS)[number], url, () => undefined);
    }
  }

  /** Every route registered, as `METHOD /path/:param` (Fastify's form), HEAD and OPTIONS included. */
  list(): string[] {
    return [...this.seen];
  }

  /** Methods under which the path exists; empty when the path is unknown. */
  allowedMethods(path: string): string[] {
    return METHODS.filter((m) => this.router.find(m, path) !== null);
  }
}
