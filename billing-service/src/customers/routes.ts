import { readBack } from '../http/idempotency.js';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { ListQuerystring, listRoute } from '../http/list-route.js';
import { countCustomers, selectCustomerRecords } from './repository.js';
import { customerListFields } from './list-fields.js';
import { toCustomerResponses } from './customer-response.js';
import {
  CreateCustomerBody,
  CustomerAcquisitionResponse,
  CustomerIdParams,
  CustomerOverviewResponse,
  CustomerReferenceResponse,
  CustomerResponse,
  SalesTrackingCodeParams,
  SalesTrackingCodeResponse,
  UpdateCustomerBody,
} from './schemas.js';
import {
  createCustomer,
  getCustomer,
  getCustomerAcquisition,
  getCustomerReference,
  getSalesTrackingCode,
  updateCustomer,
} from './service.js';
import { getCustomerOverview } from './overview.js';

const tags = ['Customers'];

export async function customerRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  const fieldsAt = customerListFields(app.ctx.catalog);

  app.get('/v1/customers', {
    schema: {
      tags,
      summary: 'List, filter, sort and page customers',
      querystring: ListQuerystring,
      response: { 200: z.array(CustomerResponse) },
    },
    handler: async (request, reply) => {
      const now = await app.ctx.clock.now(request.caller.accountId);
      return listRoute(request, reply, {
        fields: fieldsAt(now),
        defaultSort: { field: 'Id', order: 'Ascending' },
        baseQuery: selectCustomerRecords(app.ctx.db, request.caller.accountId, now),
        idColumn: 'customers.id',
        unfilteredCount: () => countCustomers(app.ctx.db, request.caller.accountId),
        toResponses: (records) => toCustomerResponses(app.ctx.db, app.ctx.uris, app.ctx.catalog.emails.defaultLanguage, records),
      });
    },
  });

  app.get('/v1/customers/:customerId', {
    schema: { tags, summary: 'Read one customer', params: CustomerIdParams, response: { 200: CustomerResponse } },
    handler: async (request) => getCustomer(app.ctx, request.caller, request.params.customerId),
  });

  app.get('/v1/customers/:customerId/overview', {
    schema: { tags, summary: "Read a customer's overview", params: CustomerIdParams, response: { 200: CustomerOverviewResponse } },
    handler: async (request) => getCustomerOverview(app.ctx, request.caller, request.params.customerId),
  });

  embeddedObjectRoutes(fastify);

  app.post('/v1/customers', {
    schema: { tags, summary: 'Create a customer (status Draft)', body: CreateCustomerBody, response: { 200: CustomerResponse } },
    config: { idempotency: readBack((r, created) => getCustomer(app.ctx, r.caller, created.Customer?.[0] ?? 0)) },
    handler: async (request) => createCustomer(app.ctx, request.caller, request.body),
  });

  app.put('/v1/customers', {
    schema: {
      tags,
      summary: 'Replace a customer (read, modify, send back)',
      body: UpdateCustomerBody,
      response: { 200: CustomerResponse },
    },
    config: { idempotency: readBack<unknown, { id: number }>((r) => getCustomer(app.ctx, r.caller, r.body.id)) },
    handler: async (request) => updateCustomer(app.ctx, request.caller, request.body),
  });
}

/** The embedded objects' `uri` values answer a GET with the object as embedded. */
function embeddedObjectRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  app.get('/v1/customers/:customerId/customerReference', {
    schema: {
      tags,
      summary: "Read a customer's customerReference",
      params: CustomerIdParams,
      response: { 200: CustomerReferenceResponse },
    },
    handler: async (request) => getCustomerReference(app.ctx, request.caller, request.params.customerId),
  });

  app.get('/v1/customers/:customerId/customerReference/salesTrackingCodes/:salesTrackingCodeId', {
    schema: {
      tags,
      summary: "Read one of a customer's sales tracking codes",
      params: SalesTrackingCodeParams,
      response: { 200: SalesTrackingCodeResponse },
    },
    handler: async (request) =>
      getSalesTrackingCode(app.ctx, request.caller, request.params.customerId, request.params.salesTrackingCodeId),
  });

  app.get('/v1/customers/:customerId/customerAcquisition', {
    schema: {
      tags,
      summary: "Read a customer's customerAcquisition",
      params: CustomerIdParams,
      response: { 200: CustomerAcquisitionResponse },
    },
    handler: async (request) => getCustomerAcquisition(app.ctx, request.caller, request.params.customerId),
  });
}
