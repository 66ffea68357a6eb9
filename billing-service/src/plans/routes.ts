import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { sql } from 'kysely';
import { z } from 'zod';
import { ListQuerystring, listRoute } from '../http/list-route.js';
import type { ListField } from '../http/lists/index.js';
import { selectPlans } from './repository.js';
import {
  AmountObject,
  PlanFrequencyAmountParams,
  PlanFrequencyIdParams,
  PlanFrequencyResponse,
  PlanIdParams,
  PlanResponse,
} from './schemas.js';
import { getPlan, getPlanFrequency, getPlanFrequencyAmount, toPlanResponses } from './service.js';

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

  // Each `uri` a plan embeds answers a GET with the object as embedded.
  app.get('/v1/planFrequencies/:planFrequencyId', {
    schema: { tags, summary: 'Read one plan frequency', params: PlanFrequencyIdParams, response: { 200: PlanFrequencyResponse } },
    handler: async (request) => getPlanFrequency(app.ctx, request.caller, request.params.planFrequencyId),
  });

  for (const kind of ['charges', 'setupFees'] as const) {
    app.get(`/v1/planFrequencies/:planFrequencyId/${kind}/:amountId`, {
      schema: {
        tags,
        summary: `Read one ${kind === 'charges' ? 'charge' : 'setup fee'} of a plan frequency`,
        params: PlanFrequencyAmountParams,
        response: { 200: AmountObject },
      },
      handler: async (request) => getPlanFrequencyAmount(app.ctx, request.params.planFrequencyId, kind, request.params.amountId),
    });
  }
}
