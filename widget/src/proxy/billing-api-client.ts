import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { ApiError, type ErrorBody } from '@renew/billing-service/http';
import { requestError } from './proxy-errors.js';

/** Tries of one write: the first, and retries after a 503 or a connection that failed. */
const WRITE_ATTEMPTS = 3;
/** The longest a retry waits, whatever Retry-After asks: a shopper is waiting. */
const MAX_RETRY_PAUSE_MS = 3_000;

type Answer = { status: number; mediaType: string; retryAfterMs: number; bytes: Uint8Array<ArrayBuffer> };

/**
 * The proxy's only way to the billing API: the private key stays on this server.
 * A 4xx from the API reaches the shopper's browser as it is (the spec's error
 * body, field keys included); anything else becomes a 502/504 without detail.
 */
export class BillingApiClient {
  private readonly authorization: string;

  constructor(
    private readonly baseUrl: string,
    apiKey: string,
    private readonly timeoutMs = 10_000,
  ) {
    this.authorization = `Basic ${apiKey}`;
  }

  async call<T>(method: 'GET' | 'POST' | 'PUT' | 'DELETE', path: string, body?: unknown): Promise<T> {
    const headers: Record<string, string> = body === undefined ? {} : { 'content-type': 'application/json' };
    const answer =
      method === 'GET'
        ? await this.send(method, path, headers, body === undefined ? undefined : JSON.stringify(body))
        : await this.write(method, path, headers, body === undefined ? undefined : JSON.stringify(body));
    const text = new TextDecoder().decode(answer.bytes);
    const parsed = text ? safeParse(text) : undefined;
    if (answer.status >= 200 && answer.status < 300) {
      if (text && parsed === undefined)
        throw requestError(502, 'the billing service answered with something that is not JSON', 'gateway_unavailable');
      return parsed as T;
    }
    throw refused(answer.status, parsed);
  }

  /** A file the billing API answers with `GET path` (an invoice's PDF): its bytes as they are, when it is of `mediaType`. */
  async file(path: string, mediaType: string): Promise<Uint8Array<ArrayBuffer>> {
    const answer = await this.send('GET', path, { accept: `${mediaType}, application/json` });
    if (answer.status >= 200 && answer.status < 300) {
      if (answer.mediaType !== mediaType)
        throw requestError(502, `the billing service answered with something that is not ${mediaType}`, 'gateway_unavailable');
      return answer.bytes;
    }
    throw refused(answer.status, safeParse(new TextDecoder().decode(answer.bytes)));
  }

  /**
   * A write, under one Idempotency-Key for all its tries: after a 503 (the database restarting; its commit may
   * have happened) or a connection that failed, it is sent again with the same key, so the billing API answers
   * what the first did instead of doing it twice. A timeout is not retried: the first may still be running.
   */
  private async write(method: string, path: string, headers: Record<string, string>, body?: string): Promise<Answer> {
    const keyed = { ...headers, 'idempotency-key': randomUUID() };
    for (let attempt = 1; ; attempt++) {
      const last = attempt >= WRITE_ATTEMPTS;
      let answer: Answer;
      try {
        answer = await this.send(method, path, keyed, body);
      } catch (error) {
        if (last || !(error instanceof ApiError) || error.statusCode !== 502) throw error;
        await sleep(250 * attempt);
        continue;
      }
      if (answer.status !== 503 || last) return answer;
      await sleep(Math.min(answer.retryAfterMs, MAX_RETRY_PAUSE_MS));
    }
  }

  private async send(method: string, path: string, headers: Record<string, string>, body?: string): Promise<Answer> {
    try {
      const response = await fetch(new URL(path, this.baseUrl), {
        method,
        headers: {
          authorization: this.authorization,
          // Labels the change in the account's audit log.
          'x-audit-source': 'checkout-widget',
          ...headers,
        },
        body,
        signal: AbortSignal.timeout(this.timeoutMs),
      });
      // split() always gives a first part: the type before any parameters.
      const mediaType = ((response.headers.get('content-type') ?? '').split(';')[0] ?? '').trim().toLowerCase();
      // Read inside the deadline too: a billing API that stalls mid-body is as late as one that never answers.
      const retryAfterMs = 1000 * (Number(response.headers.get('retry-after')) || 0);
      return { status: response.status, mediaType, retryAfterMs, bytes: new Uint8Array(await response.arrayBuffer()) };
    } catch (error) {
      const timedOut = error instanceof Error && error.name === 'TimeoutError';
      throw timedOut
        ? requestError(504, 'the billing service did not answer in time', 'gateway_timed_out')
        : requestError(502, 'the billing service cannot be reached', 'gateway_unavailable');
    }
  }
}

/** A 4xx with the spec's body goes to the shopper as it is; anything else is a 502 without detail. */
function refused(status: number, parsed: unknown): ApiError {
  if (status >= 400 && status < 500 && status !== 401) {
    const errors = (parsed as Partial<ErrorBody> | undefined)?.Errors;
    if (Array.isArray(errors)) return new ApiError(status, errors);
  }
  // A 401 here is the merchant's configuration (wrong key), not the shopper's fault.
  return requestError(502, `the billing service refused the request (${status})`, 'gateway_unavailable');
}

function safeParse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
