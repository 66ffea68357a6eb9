import { readBack } from '../http/idempotency.js';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { CustomerIdParams } from '../http/field-schemas.js';
import {
  AddressIdParams,
  AddressPreferencesResponse,
  AddressResponse,
  CreateAddressBody,
  UpdateAddressBody,
  UpdateAddressPreferencesBody,
} from './schemas.js';
import { createAddress, getAddress, getAddressPreferences, updateAddress, updateAddressPreferences } from './service.js';

const tags = ['Addresses'];

export async function addressRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<ZodTypeProvider>();

  app.get('/v1/Addresses/:addressId', {
    schema: { tags, summary: 'Read one address', params: AddressIdParams, response: { 200: AddressResponse } },
    handler: async (request) => getAddress(app.ctx, request.caller, request.params.addressId),
  });

  app.post('/v1/Addresses', {
    schema: {
      tags,
      summary: "Create a customer's billing or shipping address (one of each)",
      body: CreateAddressBody,
      response: { 200: AddressResponse },
    },
    config: { idempotency: readBack((r, created) => getAddress(app.ctx, r.caller, created.Address?.[0] ?? 0)) },
    handler: async (request) => createAddress(app.ctx, request.caller, request.body),
  });

  app.put('/v1/Addresses', {
    schema: { tags, summary: 'Replace an address', body: UpdateAddressBody, response: { 200: AddressResponse } },
    config: { idempotency: readBack<unknown, { id: number }>((r) => getAddress(app.ctx, r.caller, r.body.id)) },
    handler: async (request) => updateAddress(app.ctx, request.caller, request.body),
  });

  app.get('/v1/customerAddressPreferences/:customerId', {
    schema: {
      tags,
      summary: "Read a customer's address preferences with its addresses",
      params: CustomerIdParams,
      response: { 200: AddressPreferencesResponse },
    },
    handler: async (request) => getAddressPreferences(app.ctx, request.caller, request.params.customerId),
  });

  app.put('/v1/CustomerAddressPreferences', {
    schema: {
      tags,
      summary: "Replace a customer's address preferences",
      body: UpdateAddressPreferencesBody,
      response: { 200: AddressPreferencesResponse },
    },
    config: { idempotency: readBack<unknown, { id: number }>((r) => getAddressPreferences(app.ctx, r.caller, r.body.id)) },
    handler: async (request) => updateAddressPreferences(app.ctx, request.caller, request.body),
  });
}
