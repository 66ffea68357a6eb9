import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A stand-in for Google's reCAPTCHA siteverify endpoint, for the capture
 * figures: the capture host runs its real SiteverifyCaptcha (a form POST of
 * secret, response and remoteip over HTTP), and this answers
 * `{"success":true,"hostname":"localhost"}` for any token sent with the expected
 * secret. It runs in the benchmark process, next to autocannon.
 */
export interface SiteverifyStandIn {
  url: string;
  secret: string;
  /** Verifications answered with success. */
  readonly verified: number;
  /** Requests that were not a form POST with the secret and a token (answered `success: false`). */
  readonly refused: number;
  stop(): Promise<void>;
}

export async function startSiteverifyStandIn(secret = 'bench-recaptcha-secret'): Promise<SiteverifyStandIn> {
  let verified = 0;
  let refused = 0;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const form = new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
      const ok =
        req.method === 'POST' &&
        (req.headers['content-type'] ?? '').startsWith('application/x-www-form-urlencoded') &&
        form.get('secret') === secret &&
        Boolean(form.get('response'));
      if (ok) verified += 1;
      else refused += 1;
      const answer = ok
        ? { success: true, challenge_ts: new Date().toISOString(), hostname: 'localhost' }
        : { success: false, 'error-codes': ['invalid-input-response'] };
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(answer));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/recaptcha/api/siteverify`,
    secret,
    get verified() {
      return verified;
    },
    get refused() {
      return refused;
    },
    async stop() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
