import fp from 'fastify-plugin';
import './context.js';
import { API_ERROR_KEY, ApiError } from './errors.js';

/**
 * Refuses requests that did not arrive over HTTPS (403 in the spec's error shape),
 * except the probes (`config.probe`: /healthz, /readyz). `request.protocol`
 * honours X-Forwarded-Proto only from trusted proxies (trustProxy).
 */
export const requireHttps = fp(
  async (app) => {
    app.addHook('onRequest', async (request) => {
      if (request.protocol !== 'https' && !request.routeOptions.config?.probe) {
        throw new ApiError(403, [{ Key: API_ERROR_KEY, Value: 'HTTPS is required; plain HTTP requests are refused' }]);
      }
    });
  },
  { name: 'renew-require-https', fastify: '5.x' },
);
