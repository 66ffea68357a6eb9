import http from 'node:http';
import https from 'node:https';
import { z } from 'zod';
import { CaptchaUnavailableError, type CaptchaResult, type CaptchaVerifier } from './captcha-verifier.js';

export const GOOGLE_SITEVERIFY_URL = 'https://www.google.com/recaptcha/api/siteverify';

const SiteverifyAnswer = z.object({
  success: z.boolean(),
  hostname: z.string().optional(),
  challenge_ts: z.string().optional(),
  'error-codes': z.array(z.string()).optional(),
});

export interface SiteverifyOptions {
  /** Default: Google's siteverify endpoint (RENEW_RECAPTCHA_VERIFY_URL overrides it). */
  url?: string;
  /** Default 5000 ms. */
  timeoutMs?: number;
}

/** What came back from the CAPTCHA service: status and body text. */
interface FormAnswer {
  status: number;
  body: string;
}

/** Answers larger than this are not siteverify answers (they are a few hundred bytes). */
const MAX_ANSWER_BYTES = 64 * 1024;

/**
 * POSTs a form over a kept-alive connection. node:http rather than fetch: fetch
 * (undici, web streams) cost the capture host about as much CPU per call as the
 * rest of a capture's HTTP handling.
 */
function postForm(url: URL, agent: http.Agent, body: string, timeoutMs: number, retryOnStaleSocket = true): Promise<FormAnswer> {
  const client = url.protocol === 'https:' ? https : http;
  return new Promise<FormAnswer>((resolve, reject) => {
    const request = client.request(
      url,
      {
        method: 'POST',
        agent,
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          accept: 'application/json',
          'content-length': Buffer.byteLength(body),
        },
        signal: AbortSignal.timeout(timeoutMs),
      },
      (response) => {
        const chunks: Buffer[] = [];
        let size = 0;
        response.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > MAX_ANSWER_BYTES) request.destroy(new Error('answer too large'));
          else chunks.push(chunk);
        });
        response.on('end', () => resolve({ status: response.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
        response.on('error', reject);
      },
    );
    request.on('error', (error: NodeJS.ErrnoException) => {
      // A kept-alive connection the other end closed while idle fails as the request goes out,
      // before any answer: the form was not read there, so it is sent once more on a new
      // connection (Node's documented pattern for request.reusedSocket). Nothing else is retried.
      if (retryOnStaleSocket && request.reusedSocket && error.code === 'ECONNRESET') {
        postForm(url, agent, body, timeoutMs, false).then(resolve, reject);
      } else {
        reject(error);
      }
    });
    request.end(body);
  });
}

/**
 * reCAPTCHA v2 server-side verification (Google's siteverify protocol): POSTs
 * `secret`, `response` and `remoteip` as application/x-www-form-urlencoded and
 * reads `{success, challenge_ts, hostname, "error-codes"}`.
 */
export class SiteverifyCaptcha implements CaptchaVerifier {
  readonly mode = 'google' as const;
  readonly url: string;
  private readonly endpoint: URL;
  private readonly timeoutMs: number;
  private readonly agent: http.Agent;

  constructor(options: SiteverifyOptions = {}) {
    this.url = options.url ?? GOOGLE_SITEVERIFY_URL;
    this.endpoint = new URL(this.url);
    this.timeoutMs = options.timeoutMs ?? 5000;
    const agentOptions = { keepAlive: true, maxSockets: 64 };
    this.agent = this.endpoint.protocol === 'https:' ? new https.Agent(agentOptions) : new http.Agent(agentOptions);
  }

  async verify(token: string, remoteIp: string, secret: string): Promise<CaptchaResult> {
    const form = new URLSearchParams({ secret, response: token });
    if (remoteIp) form.set('remoteip', remoteIp);
    let response: FormAnswer;
    try {
      response = await postForm(this.endpoint, this.agent, form.toString(), this.timeoutMs);
    } catch (error) {
      const timedOut = (error as Error).name === 'TimeoutError' || (error as Error).name === 'AbortError';
      throw new CaptchaUnavailableError(
        timedOut ? `the CAPTCHA service did not answer within ${this.timeoutMs} ms` : 'the CAPTCHA service could not be reached',
        timedOut,
      );
    }
    if (response.status < 200 || response.status > 299) {
      throw new CaptchaUnavailableError(`the CAPTCHA service answered HTTP ${response.status}`, false);
    }
    let answer: z.infer<typeof SiteverifyAnswer>;
    try {
      answer = SiteverifyAnswer.parse(JSON.parse(response.body));
    } catch {
      throw new CaptchaUnavailableError('the CAPTCHA service gave an answer that is not siteverify JSON', false);
    }
    return {
      success: answer.success,
      ...(answer.hostname !== undefined ? { hostname: answer.hostname } : {}),
      errorCodes: answer['error-codes'] ?? [],
    };
  }
}
