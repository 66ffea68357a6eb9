import fp from 'fastify-plugin';
import './context.js';
import { ApiError } from './errors.js';

/**
 * Refuses requests that did not arrive over HTTPS (403 in the spec's error shape),
 * except the probes (`config.probe`: /healthz, /readyz). `request.protocol`
 * honours X-Forwarded-Proto only from trusted proxies (trustProxy).
 */
export const requireHttps = fp(
  async (app) => {
    app.addHook('onRequest', async (request) => {
      if (request.protocol !== 'https' && !request.routeOptions.config?.probe) {
        throw ApiError.of(403, 'HTTPS is required; plain HTTP requests are refused', 'forbidden');
      }
    });
  },
  { name: 'renew-require-https', fastify: '5.x' },
);
