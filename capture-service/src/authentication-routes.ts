import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { ApiError } from '@renew/billing-service/http';
import { completeCapture } from './authentication.js';
import { answerCard, answerPreflight, CAPTURE_PATH } from './capture-route.js';

export const AUTHENTICATIONS_PATH = `${CAPTURE_PATH}/authentications`;

const IdParams = z.object({ id: z.string().regex(/^cauth_[0-9a-f]{32}$/) });

/**
 * POST /api/paymentsv2/authentications/{id}: completes a capture that answered 202 (3-D Secure) once the
 * shopper has answered the challenge. Its random id, known only to the browser that made the capture, is its credential.
 */
export function registerAuthenticationRoutes(app: FastifyInstance) {
  app.options(`${AUTHENTICATIONS_PATH}/:id`, answerPreflight);

  app.post(`${AUTHENTICATIONS_PATH}/:id`, async (request, reply) => {
    const params = IdParams.safeParse(request.params);
    if (!params.success) throw ApiError.badRequest('not the id of a capture awaiting authentication', 'id', 'value_invalid');
    const captured = await completeCapture(app.ctx, params.data.id, request.log);
    return answerCard(reply, captured);
  });
}
