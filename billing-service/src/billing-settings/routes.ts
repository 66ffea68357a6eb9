import { readBack } from '../http/idempotency.js';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { CustomerIdParams } from '../http/field-schemas.js';
import { BillingSettingResponse, UpdateBillingSettingBody } from './schemas.js';
import { getBillingSetting, updateBillingSetting, type DefaultCardPort } from './service.js';

const tags = ['Billing settings'];

/** `defaultCards`: the payment-methods folder's, handed in by the wiring (app.ts). */
export async function billingSettingRoutes(fastify: FastifyInstance, options: { defaultCards: DefaultCardPort }) {
  const app = fastify.withTypeProvider<ZodTypeProvider>();

  app.get('/v1/customerbillingsetting/:customerId', {
    schema: {
      tags,
      summary:
        "Read a customer's billing setting: the values in effect (null = the account's default, for fields the spec types 'or null')",
      params: CustomerIdParams,
      response: { 200: BillingSettingResponse },
    },
    handler: async (request) => getBillingSetting(app.ctx, request.caller, request.params.customerId),
  });

  app.put('/v1/customerbillingsetting', {
    schema: {
      tags,
      summary: "Replace a customer's billing setting (read, modify, send back)",
      body: UpdateBillingSettingBody,
      response: { 200: BillingSettingResponse },
    },
    config: { idempotency: readBack<unknown, { id: number }>((r) => getBillingSetting(app.ctx, r.caller, r.body.id)) },
    handler: async (request) => updateBillingSetting(app.ctx, request.caller, request.body, options.defaultCards),
  });
}
