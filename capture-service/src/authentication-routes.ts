import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { ApiError } from '@renew/billing-service/http';
import { completeCapture } from './authentication.js';
import { answerCard, answerChallenge, answerPreflight, CAPTURE_PATH } from './capture-route.js';

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
    // The first payment's own challenge, when the bank asks for it after the card's: 202 again.
    if ('challengeUrl' in captured) return answerChallenge(request, reply, captured);
    return answerCard(reply, captured);
  });
}
