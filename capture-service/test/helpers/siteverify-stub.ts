import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface SiteverifyCall {
  contentType: string | undefined;
  secret: string | null;
  response: string | null;
  remoteip: string | null;
}

/**
 * A local stand-in for Google's siteverify endpoint, speaking its protocol: a
 * form POST of secret, response and remoteip answered with
 * `{success, challenge_ts, hostname, "error-codes"}`. It knows the secrets it
 * was given and the tokens it issued (each for one secret and one hostname).
 */
export class SiteverifyStub {
  readonly calls: SiteverifyCall[] = [];
  private readonly tokens = new Map<string, { secret: string; hostname: string }>();
  private server?: http.Server;
  /** 'ok', or a failure mode for the next requests. */
  behaviour: 'ok' | 'http500' | 'hang' | 'not-json' = 'ok';
  url = '';

  constructor(private readonly secrets: ReadonlySet<string>) {}

  /** A token the widget would give after a solved challenge on `hostname`, verifiable with `secret`. */
  issue(secret: string, hostname = 'shop.example.com'): string {
    const token = `03A${randomBytes(24).toString('base64url')}`;
    this.tokens.set(token, { secret, hostname });
    return token;
  }

  async start(): Promise<this> {
    this.server = http.createServer((req, res) => {
      let body = '';
      req.setEncoding('utf8');
      req.on('data', (chunk) => (body += chunk));
      req.on('end', () => this.answer(req, res, body));
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    const { port } = this.server.address() as AddressInfo;
    this.url = `http://127.0.0.1:${port}/recaptcha/api/siteverify`;
    return this;
  }

  private answer(req: http.IncomingMessage, res: http.ServerResponse, body: string) {
    const send = (status: number, value: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(value));
    };
    if (this.behaviour === 'hang') return; // never answers; the client's timeout must fire
    if (this.behaviour === 'http500') return send(500, { error: 'boom' });
    if (this.behaviour === 'not-json') {
      res.writeHead(200, { 'content-type': 'text/html' });
      return res.end('<html>nope</html>');
    }
    if (req.method !== 'POST' || !req.url?.startsWith('/recaptcha/api/siteverify')) return send(404, {});
    const form = new URLSearchParams(body);
    const call: SiteverifyCall = {
      contentType: req.headers['content-type'],
      secret: form.get('secret'),
      response: form.get('response'),
      remoteip: form.get('remoteip'),
    };
    this.calls.push(call);
    if (!call.contentType?.startsWith('application/x-www-form-urlencoded')) {
      return send(200, { success: false, 'error-codes': ['bad-request'] });
    }
    if (!call.secret) return send(200, { success: false, 'error-codes': ['missing-input-secret'] });
    if (!this.secrets.has(call.secret)) return send(200, { success: false, 'error-codes': ['invalid-input-secret'] });
    if (!call.response) return send(200, { success: false, 'error-codes': ['missing-input-response'] });
    const issued = this.tokens.get(call.response);
    if (!issued || issued.secret !== call.secret) return send(200, { success: false, 'error-codes': ['invalid-input-response'] });
    return send(200, { success: true, challenge_ts: new Date().toISOString(), hostname: issued.hostname });
  }

  async stop() {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}
