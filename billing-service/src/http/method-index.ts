import FindMyWay from 'find-my-way';
import type { RouteOptions } from 'fastify';
import type { HTTPMethod } from 'find-my-way';

/**
 * Remembers which methods each path accepts, so an existing path called with
 * the wrong method gets 405 with an Allow header instead of a bare 404.
 */
export class MethodIndex {
  private readonly router = FindMyWay({ caseSensitive: false, ignoreTrailingSlash: true });
  private readonly methods = new Set<string>();

  add(route: RouteOptions) {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    for (const method of methods) {
      if (method === 'HEAD' || method === 'OPTIONS') continue;
      this.methods.add(method);
      this.router.on(method.toUpperCase() as HTTPMethod, route.url, () => undefined);
    }
  }

  allowed(url: string): string[] {
    const path = url.split('?')[0] ?? '/';
    return [...this.methods].filter((m) => this.router.find(m as HTTPMethod, path) !== null);
  }
}
