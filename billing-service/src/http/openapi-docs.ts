import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifySchema, RouteOptions } from 'fastify';
import fp from 'fastify-plugin';
import { jsonSchemaTransform } from 'fastify-type-provider-zod';
import './context.js';
import { z } from 'zod';
import { ErrorBodySchema } from './error-codes.js';
import { isV1Write } from './idempotency.js';

/**
 * The OpenAPI 3.1 document at /v1/openapi.json, generated from the routes' zod
 * schemas, and the reference page at /docs; both public (no API key).
 * Register it before the routes it documents.
 */
export const openApiDocs = fp<{ publicBaseUrl: string }>(
  async (app, options) => {
    await app.register(swagger, {
      openapi: {
        openapi: '3.1.0',
        info: {
          title: 'Renew billing API',
          version: '1.0.0',
          description:
            'Subscription billing: customers, settings, plans, subscriptions, invoices, payments. Errors are {ErrorId, HttpStatusCode, Errors:[{Key, Value, Code?}]} (components.schemas.ErrorBody); branch on Code, not on the English Value.',
        },
        servers: [{ url: options.publicBaseUrl }],
        components: {
          securitySchemes: { apiKey: { type: 'http', scheme: 'basic', description: 'Authorization: Basic <private API key>' } },
          schemas: { ErrorBody: jsonSchemaOf(ErrorBodySchema) },
        },
        security: [{ apiKey: [] }],
      },
      transform: (route) => documentIdempotencyKey(jsonSchemaTransform(route), route.route),
    });
    await app.register(async (docs) => {
      // The reference page and its assets are public, like the document itself.
      docs.addHook('onRoute', (route) => {
        route.config = { ...(route.config as object), public: true };
      });
      await docs.register(swaggerUi, { routePrefix: '/docs', uiConfig: { docExpansion: 'list' } });
    });
    app.get('/v1/openapi.json', { config: { public: true }, schema: { hide: true } }, async () => app.swagger());
  },
  { name: 'renew-openapi-docs', fastify: '5.x' },
);

/**
 * A keyed write (http/idempotency.ts: every POST, PUT, PATCH and DELETE of /v1 not opted out) documents the
 * `Idempotency-Key` header. For the reference only: the header is read by the idempotency plugin, not validated here.
 */
function documentIdempotencyKey(out: { schema: FastifySchema; url: string }, route: RouteOptions): { schema: FastifySchema; url: string } {
  if (!isV1Write(route.method, route.url) || route.config?.idempotency?.off) return out;
  const headers = (out.schema.headers ?? { type: 'object', properties: {} }) as { properties?: Record<string, unknown> };
  const key = {
    type: 'string',
    maxLength: 255,
    description:
      'Makes the write safe to retry: the same key and request within 24 hours answer the first result (Idempotent-Replayed: true); the key with another request is 422.',
  };
  return { ...out, schema: { ...out.schema, headers: { ...headers, properties: { ...headers.properties, 'Idempotency-Key': key } } } };
}

/** A zod schema as an OpenAPI 3.1 schema object (JSON Schema 2020-12, without its `$schema`). */
function jsonSchemaOf(schema: z.ZodType): Record<string, unknown> {
  const { $schema: _dialect, ...rest } = z.toJSONSchema(schema) as Record<string, unknown>;
  return rest;
}
