import { readBack } from '../http/idempotency.js';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { AdvanceTestClockBody, TestClockAdvanceResponse, TestClockResponse } from './schemas.js';
import { advanceTestClock, readTestClock, resetTestClock } from './service.js';

const tags = ['Test clocks'];

/** The account's test clock (registered only with RENEW_TEST_CLOCKS=true). */
export async function testClockRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<ZodTypeProvider>();

  app.get('/v1/testclock', {
    schema: { tags, summary: "The account's time, and whether its test clock was advanced", response: { 200: TestClockResponse } },
    handler: async (request) => readTestClock(app.ctx, request.caller),
  });

  app.post('/v1/testclock/advance', {
    schema: {
      tags,
      summary: "Move the account's time forward (at most five years), running renewals, collection and dunning day by day",
      body: AdvanceTestClockBody,
      response: { 200: TestClockAdvanceResponse },
    },
    handler: async (request) => advanceTestClock(app.ctx, request.caller, request.body),
  });

  app.post('/v1/testclock/reset', {
    schema: {
      tags,
      summary: 'Return the account to real time (refused once records are dated in its future)',
      response: { 200: TestClockResponse },
    },
    config: { idempotency: readBack((r) => readTestClock(app.ctx, r.caller)) },
    handler: async (request) => resetTestClock(app.ctx, request.caller),
  });
}
