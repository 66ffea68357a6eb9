import { Refusal } from '../refusals/refusal.js';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { listRoute, type ListRouteSpec } from '../http/list-route.js';
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
