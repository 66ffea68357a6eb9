import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { ListQuerystring, listRoute } from '../http/list-route.js';
import { selectCustomerRecords } from './repository.js';
import { customerListFields } from './list-fields.js';
import { toCustomerResponses } from './customer-response.js';
import {
  CreateCustomerBody,
  CustomerIdParams,
  CustomerOverviewResponse,
  CustomerResponse,
  UpdateCustomerBody,
} from './schemas.js';
import { createCustomer, getCustomer, getCustomerOverview, updateCustomer } from './service.js';

const tags = ['Customers'];

export async function customerRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  const fields = customerListFields(app.ctx.catalog);

  app.get('/v1/customers', {
    schema: { tags, summary: 'List, filter, sort and page customers', querystring: ListQuerystring, response: { 200: z.array(CustomerResponse) } },
    handler: async (request, reply) =>
      listRoute(request, reply, {
        fields,
        defaultSort: { field: 'Id', order: 'Ascending' },
        baseQuery: selectCustomerRecords(app.ctx.db, request.caller.accountId),
        idColumn: 'customers.id',
        toResponses: (records) => toCustomerResponses(app.ctx.db, app.ctx.uris, records),
      }),
  });

  app.get('/v1/customers/:customerId', {
    schema: { tags, summary: 'Read one customer', params: CustomerIdParams, response: { 200: CustomerResponse } },
    handler: async (request) => getCustomer(app.ctx, request.caller, request.params.customerId),
  });

  app.get('/v1/customers/:customerId/overview', {
    schema: { tags, summary: "Read a customer's overview", params: CustomerIdParams, response: { 200: CustomerOverviewResponse } },
    handler: async (request) => getCustomerOverview(app.ctx, request.caller, request.params.customerId),
  });

  app.post('/v1/customers', {
    schema: { tags, summary: 'Create a customer (status Draft)', body: CreateCustomerBody, response: { 200: CustomerResponse } },
    handler: async (request) => createCustomer(app.ctx, request.caller, request.body),
  });

  app.put('/v1/customers', {
    schema: { tags, summary: 'Replace a customer (read, modify, send back)', body: UpdateCustomerBody, response: { 200: CustomerResponse } },
    handler: async (request) => updateCustomer(app.ctx, request.caller, request.body),
  });
}
