import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import fp from 'fastify-plugin';
import { jsonSchemaTransform } from 'fastify-type-provider-zod';
import './context.js';
import { z } from 'zod';
import { ErrorBodySchema } from './error-codes.js';

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
      transform: jsonSchemaTransform,
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

/** A zod schema as an OpenAPI 3.1 schema object (JSON Schema 2020-12, without its `$schema`). */
function jsonSchemaOf(schema: z.ZodType): Record<string, unknown> {
  const { $schema: _dialect, ...rest } = z.toJSONSchema(schema) as Record<string, unknown>;
  return rest;
}
