import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { sql } from 'kysely';
import { z } from 'zod';
import type { AppContext } from '../app-context.js';
import { CustomerIdParams } from '../http/field-schemas.js';
import { ListQuerystring, listRoute, type ListRouteSpec } from '../http/list-route.js';
import type { ListField } from '../http/lists/index.js';
import { Refusal } from '../refusals/refusal.js';
import { customerExists } from './repository.js';

/** A list under one customer (notes, subscriptions, invoices, payments, cards): 404 for a customer the caller cannot see. */
export async function listCustomerChildren<Row, Item>(
  request: FastifyRequest,
  reply: FastifyReply,
  customerId: number,
  spec: ListRouteSpec<Row, Item>,
): Promise<Item[]> {
  if (!(await customerExists(request.server.ctx.db, request.caller.accountId, customerId))) throw Refusal.notFound('customer', customerId);
  return listRoute(request, reply, spec);
}

/** One endpoint `GET /v1/customers/{customerId}/<children>`, as every child list of a customer has it. */
export interface CustomerChildList<Row, Item> {
  path: string;
  tags: string[];
  summary: string;
  item: z.ZodType<Item>;
  fields: readonly ListField[];
  /** The children's table: its `customerId` scopes the list and its `id` breaks ties (default sort Id ascending). */
  table: string;
  /** The children of the caller's account, as the list reads them. */
  select: (ctx: AppContext, accountId: number) => ListRouteSpec<Row, Item>['baseQuery'];
  toResponses: (ctx: AppContext, rows: Row[]) => Item[] | Promise<Item[]>;
}

/** Registers a customer's child list: paging, query language and X-* headers of every list, 404 for an unknown customer. */
export function customerChildListRoute<Row, Item>(fastify: FastifyInstance, spec: CustomerChildList<Row, Item>) {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  app.get(spec.path, {
    schema: {
      tags: spec.tags,
      summary: spec.summary,
      params: CustomerIdParams,
      querystring: ListQuerystring,
      response: { 200: z.array(spec.item) },
    },
    handler: async (request, reply) => {
      const { customerId } = request.params;
      return listCustomerChildren(request, reply, customerId, {
        fields: spec.fields,
        defaultSort: { field: 'Id', order: 'Ascending' },
        baseQuery: spec.select(app.ctx, request.caller.accountId).where(sql.ref(`${spec.table}.customerId`), '=', customerId),
        idColumn: `${spec.table}.id`,
        toResponses: (rows) => spec.toResponses(app.ctx, rows),
      });
    },
  });
}
