import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { CaptureTokenResponse, CreateCaptureTokenBody } from './schemas.js';
import { createCaptureToken } from './service.js';

export async function captureTokenRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  app.post('/v1/captureTokens', {
    schema: {
      tags: ['Payment methods'],
      summary: 'Let the card-capture host put a card on this customer, once, for a short time (an extension of the spec)',
      body: CreateCaptureTokenBody,
      response: { 200: CaptureTokenResponse },
    },
    // A lost answer's token never reached the client: a new one is the answer it needs (the first expires unused).
    config: { idempotency: { afterCommit: 'runAgain' } },
    handler: async (request) => createCaptureToken(app.ctx, request.caller, request.body),
  });
}
