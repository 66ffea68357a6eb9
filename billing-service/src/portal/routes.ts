import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { createPortalSession } from './link-issuing.js';
import { CreatePortalSessionBody, PortalSessionResponse } from './schemas.js';

const tags = ['Customer portal'];

export async function portalRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<ZodTypeProvider>();

  app.post('/v1/portalSessions', {
    schema: {
      tags,
      summary: 'A one-use link (15 minutes) into the customer portal on the card-capture host, optionally on one task',
      body: CreatePortalSessionBody,
      response: { 200: PortalSessionResponse },
    },
    // A lost answer's token never reached the client: a new one is the answer it needs (the first expires unused).
    config: { idempotency: { afterCommit: 'runAgain' } },
    handler: async (request) => createPortalSession(app.ctx, request.caller, request.body),
  });
}
