import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { CountryIdParams, CountryResponse } from './schemas.js';
import { COUNTRIES_CACHE_CONTROL, countryList, oneCountry } from './service.js';
import { sendStaticJson } from './static-json.js';

const tags = ['Countries'];
const caching =
  ' No API key needed. Cacheable: `Cache-Control: public, max-age=86400` and a strong `ETag`; send it back in `If-None-Match` to get 304 without a body.';

/** "Read Country ID": the country and state ids that address and payment-method calls take. */
export async function countryRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<ZodTypeProvider>();

  app.get('/v1/countries', {
    config: { public: true },
    // The bodies are compressed once and kept (StaticJson), not on every request.
    compress: false,
    schema: {
      tags,
      summary: 'List countries with their states/provinces and ids (Read Country ID)',
      description: `Every ISO 3166-1 country, by name, with its first-level subdivisions.${caching}`,
      security: [],
      response: { 200: z.array(CountryResponse), 304: z.null().describe('Not modified') },
    },
    handler: async (request, reply) => sendStaticJson(request, reply, countryList(), COUNTRIES_CACHE_CONTROL),
  });

  app.get('/v1/countries/:countryId', {
    config: { public: true },
    compress: false,
    schema: {
      tags,
      summary: 'Read one country with its states/provinces',
      description: `The id is the ISO 3166-1 numeric code (\`/v1/countries/124\`); the alpha-2 or alpha-3 code is accepted instead (\`/v1/countries/CA\`, \`/v1/countries/CAN\`). 404 if unknown.${caching}`,
      security: [],
      params: CountryIdParams,
      response: { 200: CountryResponse, 304: z.null().describe('Not modified') },
    },
    handler: async (request, reply) => sendStaticJson(request, reply, oneCountry(request.params.countryId), COUNTRIES_CACHE_CONTROL),
  });
}
