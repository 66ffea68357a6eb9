import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { sql } from 'kysely';
import { z } from 'zod';
import { ListQuerystring, listRoute } from '../http/list-route.js';
import type { ListField } from '../http/lists/index.js';
import { selectPlans } from './repository.js';
import { PlanIdParams, PlanResponse } from './schemas.js';
import { getPlan, toPlanResponses } from './service.js';

const tags = ['Plans'];
const planListFields: ListField[] = [
  { name: 'Code', type: 'string', expression: sql.ref('plans.code') },
  { name: 'Name', type: 'string', expression: sql.ref('plans.name') },
  { name: 'Reference', type: 'string', expression: sql.ref('plans.reference') },
  { name: 'Description', type: 'string', expression: sql.ref('plans.description') },
  { name: 'Status', type: 'enum', values: ['Active', 'Inactive'], expression: sql.ref('plans.status') },
  { name: 'ModificationTimestamp', type: 'date', expression: sql.ref('plans.modifiedAt') },
  { name: 'Id', type: 'integer', expression: sql.ref('plans.id') },
];

export async function planRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<ZodTypeProvider>();

  app.get('/v1/Plans', {
    schema: { tags, summary: 'List plans with their frequencies', querystring: ListQuerystring, response: { 200: z.array(PlanResponse) } },
    handler: async (request, reply) =>
      listRoute(request, reply, {
        fields: planListFields,
        defaultSort: { field: 'Id', order: 'Ascending' },
        baseQuery: selectPlans(app.ctx.db),
        idColumn: 'plans.id',
        toResponses: (rows) => toPlanResponses(app.ctx.db, request.caller, app.ctx.uris, rows),
      }),
  });

  app.get('/v1/Plans/:planId', {
    schema: { tags, summary: 'Read one plan', params: PlanIdParams, response: { 200: PlanResponse } },
    handler: async (request) => getPlan(app.ctx, request.caller, request.params.planId),
  });
}
