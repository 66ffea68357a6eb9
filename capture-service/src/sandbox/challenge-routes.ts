import { randomBytes } from 'node:crypto';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { type SandboxGateway, SANDBOX_CHALLENGE_PATH } from '@renew/billing-service/payments';

/**
 * The sandbox issuer's 3-D Secure challenge page (README "Test cards"): what a real bank's page is to a
 * real processor. It offers Complete and Fail; the answer is the gateway's, and the page then tells the
 * window that framed or opened it (`renew-3ds` message), which completes the capture.
 */
export function registerSandboxChallenge(app: FastifyInstance, gateway: SandboxGateway) {
  app.get<{ Params: { id: string } }>(`${SANDBOX_CHALLENGE_PATH}/:id`, async (request, reply) => {
    const challenge = await gateway.describeChallenge(request.params.id);
    if (!challenge) return page(reply.code(404), 'Unknown authentication', '<p>This bank knows no such authentication.</p>');
    if (!challenge.waiting) return page(reply, 'Authentication', '<p>This authentication was already answered, or has expired.</p>');
    const action = `${SANDBOX_CHALLENGE_PATH}/${encodeURIComponent(request.params.id)}`;
    return page(
      reply,
      'Confirm your payment',
      `<p>Renew sandbox bank: confirm that you are paying with your card ending in <strong>${escapeHtml(challenge.lastFour)}</strong>.</p>
      <form method="post" action="${action}">
        <button type="submit" name="answer" value="complete">Complete</button>
        <button type="submit" name="answer" value="fail">Fail</button>
      </form>`,
    );
  });

  app.post<{ Params: { id: string }; Body: { answer?: string } }>(`${SANDBOX_CHALLENGE_PATH}/:id`, async (request, reply) => {
    const answer = request.body?.answer === 'complete' ? 'complete' : 'fail';
    const taken = await gateway.answerChallenge(request.params.id, answer);
    const nonce = randomBytes(16).toString('base64');
    const message = JSON.stringify({ type: 'renew-3ds', id: request.params.id, answer: taken ? answer : 'unavailable' });
    return page(
      reply,
      'Authentication',
      `<p role="status">${taken ? (answer === 'complete' ? 'Authenticated. You can go back to the shop.' : 'Authentication failed.') : 'This authentication was already answered, or has expired.'}</p>
      <script nonce="${nonce}">(window.opener || window.parent).postMessage(${message}, '*');</script>`,
      nonce,
    );
  });
}

/** A small HTML page of the capture host for the bank's side of a challenge: no outside resource, one nonce'd script at most. */
export function page(reply: FastifyReply, title: string, body: string, nonce?: string) {
  return reply
    .header(
      'content-security-policy',
      `default-src 'none'; style-src 'unsafe-inline'; form-action 'self'${nonce ? `; script-src 'nonce-${nonce}'` : ''}`,
    )
    .header('cache-control', 'no-store')
    .header('x-content-type-options', 'nosniff')
    .type('text/html; charset=utf-8')
    .send(`<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${title}</title>
<style>body{font:16px system-ui,sans-serif;margin:1.5rem;color:#111}button{font:inherit;padding:.5rem 1rem;margin-right:.5rem}</style></head>
<body><main><h1>${title}</h1>${body}</main></body></html>`);
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
