import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { sql } from 'kysely';
import { z } from 'zod';
import { customerChildListRoute } from '../customers/child-list.js';
import { ListQuerystring, listRoute } from '../http/list-route.js';
import type { ListField } from '../http/lists/index.js';
import { selectDisputes } from './repository.js';
import { toDisputeResponses } from './responses.js';
import { DISPUTE_STATUSES, DisputeEvidenceBody, DisputeIdParams, DisputeResponse } from './schemas.js';
import { getDispute, submitDisputeEvidence } from './evidence.js';

const tags = ['Disputes'];
const disputeListFields: ListField[] = [
  { name: 'Status', type: 'enum', values: DISPUTE_STATUSES, expression: sql.ref('disputes.status') },
  { name: 'Reason', type: 'string', expression: sql.ref('disputes.reason') },
  { name: 'CustomerId', type: 'integer', expression: sql.ref('disputes.customerId') },
  { name: 'PaymentId', type: 'integer', expression: sql.ref('disputes.paymentId') },
  { name: 'EvidenceDueTimestamp', type: 'date', expression: sql.ref('disputes.evidenceDueAt') },
  { name: 'CreatedTimestamp', type: 'date', expression: sql.ref('disputes.createdAt') },
  { name: 'Id', type: 'integer', expression: sql.ref('disputes.id') },
];

/** Disputes (chargebacks) the processor opened on payments: read them, answer them with evidence. */
export async function disputeRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<ZodTypeProvider>();

  app.get('/v1/disputes', {
    schema: { tags, summary: "List the account's disputes", querystring: ListQuerystring, response: { 200: z.array(DisputeResponse) } },
    handler: async (request, reply) =>
      listRoute(request, reply, {
        fields: disputeListFields,
        defaultSort: { field: 'Id', order: 'Descending' },
        baseQuery: selectDisputes(app.ctx.db, request.caller.accountId),
        idColumn: 'disputes.id',
        toResponses: (rows) => toDisputeResponses(app.ctx.db, app.ctx.uris, rows),
      }),
  });

  app.get('/v1/disputes/:disputeId', {
    schema: { tags, summary: 'Read one dispute', params: DisputeIdParams, response: { 200: DisputeResponse } },
    handler: async (request) => getDispute(app.ctx, request.caller, request.params.disputeId),
  });

  app.post('/v1/disputes/:disputeId/evidence', {
    schema: {
      tags,
      summary: "Answer a dispute with the merchant's evidence (Idempotency-Key: a retry submits once)",
      params: DisputeIdParams,
      body: DisputeEvidenceBody,
      headers: z.object({ 'idempotency-key': z.string().min(1).max(255).optional() }),
      response: { 200: DisputeResponse },
    },
    // The processor answers a retry under the same key as the first time; recording it again changes nothing.
    config: { idempotency: { afterCommit: 'runAgain' } },
    handler: async (request) => {
      const key = request.headers['idempotency-key'];
      const idempotencyKey = typeof key === 'string' && key ? key : undefined;
      return submitDisputeEvidence(app.ctx, request.caller, request.params.disputeId, request.body, idempotencyKey);
    },
  });

  customerChildListRoute(app, {
    path: '/v1/customers/:customerId/disputes',
    tags,
    summary: "List a customer's disputes",
    item: DisputeResponse,
    fields: disputeListFields,
    table: 'disputes',
    select: (ctx, accountId) => selectDisputes(ctx.db, accountId),
    toResponses: (ctx, rows) => toDisputeResponses(ctx.db, ctx.uris, rows),
  });
}
