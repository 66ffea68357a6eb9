import { ApiError, API_ERROR_KEY, type ErrorBody } from '@renew/billing-service/http/errors.js';

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

  async call<T>(method: 'GET' | 'POST' | 'PUT', path: string, body?: unknown): Promise<T> {
    let response: Response;
    try {
      response = await fetch(new URL(path, this.baseUrl), {
        method,
        headers: {
          authorization: this.authorization,
          // Labels the change in the account's audit log.
          'x-audit-source': 'checkout-widget',
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(this.timeoutMs),
      });
    } catch (error) {
      const timedOut = error instanceof Error && error.name === 'TimeoutError';
      throw new ApiError(timedOut ? 504 : 502, [{ Key: API_ERROR_KEY, Value: timedOut ? 'the billing service did not answer in time' : 'the billing service cannot be reached' }]);
    }
    const text = await response.text();
    if (response.ok) return (text ? JSON.parse(text) : undefined) as T;
    if (response.status >= 400 && response.status < 500 && response.status !== 401) {
      const parsed = safeParse(text) as Partial<ErrorBody> | undefined;
      if (parsed && Array.isArray(parsed.Errors)) throw new ApiError(response.status, parsed.Errors);
    }
    // A 401 here is the merchant's configuration (wrong key), not the shopper's fault.
    throw new ApiError(502, [{ Key: API_ERROR_KEY, Value: `the billing service refused the request (${response.status})` }]);
  }
}

function safeParse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
