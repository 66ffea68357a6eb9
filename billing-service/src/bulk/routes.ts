import { readBack } from '../http/idempotency.js';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { BulkJobIdParams, BulkJobQuerystring, BulkJobResponse, ProcessBulkJobBody, SubmitBulkPaymentsBody } from './schemas.js';
import { cancelBulkJob, getBulkJob, processBulkJob, submitBulkPayments } from './service.js';

const tags = ['Bulk payments'];

export async function bulkRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<ZodTypeProvider>();

  app.post('/v1/bulkPaymentSubmit', {
    schema: {
      tags,
      summary: 'Submit a bulk payment job (every item is checked; nothing is charged yet)',
      body: SubmitBulkPaymentsBody,
      response: { 200: BulkJobResponse },
    },
    config: { idempotency: readBack((r, created) => getBulkJob(app.ctx, r.caller, created.BulkJob?.[0] ?? 0, false)) },
    handler: async (request) => submitBulkPayments(app.ctx, request.caller, request.body),
  });

  app.get('/v1/BulkApi/:bulkJobId', {
    schema: {
      tags,
      summary: 'Read a bulk job (view=full adds every record and its outcome)',
      params: BulkJobIdParams,
      querystring: BulkJobQuerystring,
      response: { 200: BulkJobResponse },
    },
    handler: async (request) => getBulkJob(app.ctx, request.caller, request.params.bulkJobId, request.query.view?.toLowerCase() === 'full'),
  });

  // The spec writes `/v1/BulkApi/Process/`: trailing slashes are ignored everywhere.
  app.post('/v1/BulkApi/Process', {
    schema: {
      tags,
      summary: 'Process a Validated bulk job (in the background)',
      body: ProcessBulkJobBody,
      response: { 200: BulkJobResponse },
    },
    config: { idempotency: readBack<unknown, { id: number }>((r) => getBulkJob(app.ctx, r.caller, r.body.id, false)) },
    handler: async (request) => processBulkJob(app.ctx, request.caller, request.body.id),
  });

  app.post('/v1/BulkApi/Cancel/:bulkJobId', {
    schema: {
      tags,
      summary: 'Cancel the payments of a bulk job not processed yet',
      params: BulkJobIdParams,
      response: { 200: BulkJobResponse },
    },
    config: { idempotency: readBack<{ bulkJobId: number }>((r) => getBulkJob(app.ctx, r.caller, r.params.bulkJobId, false)) },
    handler: async (request) => cancelBulkJob(app.ctx, request.caller, request.params.bulkJobId),
  });
}
