import { Readable } from 'node:stream';
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { listInputFromUrl } from '../../http/lists/index.js';
import { Refusal } from '../../refusals/refusal.js';
import { customersCsv, invoicesCsv, paymentsCsv, searchCustomers } from './exports.js';
import {
  CustomerSearchQuery,
  CustomerSearchResponse,
  CustomersExportQuery,
  InvoicesExportQuery,
  PaymentsExportQuery,
} from './search-schemas.js';

const tags = ['Console'];
const viewer = { public: true, consolePermission: 'console:read' } as const;

/** A CSV streamed as it is read (never built in memory), named with the account's day. */
async function sendCsv(reply: FastifyReply, name: string, day: Date, lines: AsyncIterable<string>) {
  return reply
    .type('text/csv; charset=utf-8')
    .header('content-disposition', `attachment; filename="${name}-${day.toISOString().slice(0, 10)}.csv"`)
    .header('cache-control', 'no-store')
    .send(Readable.from(lines));
}

/** The plain-text customer search and the CSV exports of the customer, invoice and payment lists. */
export function searchAndExportRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  const ctx = () => app.ctx;

  app.get('/console/api/customers/search', {
    config: viewer,
    schema: {
      tags,
      summary: 'Customers whose name, e-mail, company, reference or id starts with the words typed; exact matches first',
      querystring: CustomerSearchQuery,
      response: { 200: CustomerSearchResponse },
    },
    handler: async (request) => searchCustomers(ctx(), request.operator, request.query),
  });

  app.get('/console/api/exports/customers.csv', {
    config: viewer,
    schema: {
      tags,
      summary: 'The customer list as CSV, with its filters (plain text `q` or the query language `query`)',
      querystring: CustomersExportQuery,
    },
    handler: async (request, reply) => {
      const query = listInputFromUrl(request.url).query ?? undefined;
      if (request.query.q?.trim() && query)
        throw Refusal.invalid('give either q (plain text) or query (the query language), not both', 'query', 'value_invalid');
      const lines = await customersCsv(ctx(), request.operator, { ...request.query, query });
      return sendCsv(reply, 'customers', await ctx().clock.now(request.operator.accountId), lines);
    },
  });

  app.get('/console/api/exports/invoices.csv', {
    config: viewer,
    schema: { tags, summary: "The invoices as CSV, newest first (the account's or one customer's)", querystring: InvoicesExportQuery },
    handler: async (request, reply) =>
      sendCsv(reply, 'invoices', await ctx().clock.now(request.operator.accountId), invoicesCsv(ctx(), request.operator, request.query)),
  });

  app.get('/console/api/exports/payments.csv', {
    config: viewer,
    schema: {
      tags,
      summary: 'The payments as CSV, newest first (all or the failures; the account’s or one customer’s)',
      querystring: PaymentsExportQuery,
    },
    handler: async (request, reply) =>
      sendCsv(reply, 'payments', await ctx().clock.now(request.operator.accountId), paymentsCsv(ctx(), request.operator, request.query)),
  });
}
