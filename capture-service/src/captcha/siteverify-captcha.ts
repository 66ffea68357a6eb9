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

/**
 * reCAPTCHA v2 server-side verification (Google's siteverify protocol): POSTs
 * `secret`, `response` and `remoteip` as application/x-www-form-urlencoded and
 * reads `{success, challenge_ts, hostname, "error-codes"}`.
 */
export class SiteverifyCaptcha implements CaptchaVerifier {
  readonly mode = 'google' as const;
  readonly url: string;
  private readonly timeoutMs: number;

  constructor(options: SiteverifyOptions = {}) {
    this.url = options.url ?? GOOGLE_SITEVERIFY_URL;
    this.timeoutMs = options.timeoutMs ?? 5000;
  }

  async verify(token: string, remoteIp: string, secret: string): Promise<CaptchaResult> {
    const form = new URLSearchParams({ secret, response: token });
    if (remoteIp) form.set('remoteip', remoteIp);
    let response: Response;
    try {
      response = await fetch(this.url, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
        body: form.toString(),
        signal: AbortSignal.timeout(this.timeoutMs),
      });
    } catch (error) {
      const timedOut = (error as Error).name === 'TimeoutError' || (error as Error).name === 'AbortError';
      throw new CaptchaUnavailableError(timedOut ? `the CAPTCHA service did not answer within ${this.timeoutMs} ms` : 'the CAPTCHA service could not be reached', timedOut);
    }
    if (!response.ok) {
      await response.body?.cancel().catch(() => undefined);
      throw new CaptchaUnavailableError(`the CAPTCHA service answered HTTP ${response.status}`, false);
    }
    let answer: z.infer<typeof SiteverifyAnswer>;
    try {
      answer = SiteverifyAnswer.parse(await response.json());
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
