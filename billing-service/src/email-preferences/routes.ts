import { readBack } from '../http/idempotency.js';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { CustomerIdParams } from '../customers/schemas.js';
import { EmailPreferencesResponse, UpdateEmailPreferencesBody } from './schemas.js';
import { getEmailPreferences, updateEmailPreferences } from './service.js';

const tags = ['E-mail preferences'];
const defaults =
  'accountDefault comes from the account configuration (defaults.emailPreferences); a type it does not list defaults to true.';

export async function emailPreferenceRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<ZodTypeProvider>();

  app.get('/v1/customers/:customerId/CustomerEmailPreferences', {
    schema: {
      tags,
      summary: "Read a customer's e-mail preferences (every type)",
      description: `enabled is true, false or null (use accountDefault). ${defaults}`,
      params: CustomerIdParams,
      response: { 200: EmailPreferencesResponse },
    },
    handler: async (request) => getEmailPreferences(app.ctx, request.caller, request.params.customerId),
  });

  app.put('/v1/CustomerEmailPreferences', {
    schema: {
      tags,
      summary: "Replace a customer's e-mail preferences",
      description: `Send the whole set: types left out become null (the account default). enabled takes true, false, null or the strings "true", "false", "null". Returns every type. ${defaults}`,
      body: UpdateEmailPreferencesBody,
      response: { 200: EmailPreferencesResponse },
    },
    config: { idempotency: readBack<unknown, { customerId: number }>((r) => getEmailPreferences(app.ctx, r.caller, r.body.customerId)) },
    handler: async (request) => updateEmailPreferences(app.ctx, request.caller, request.body),
  });
}
