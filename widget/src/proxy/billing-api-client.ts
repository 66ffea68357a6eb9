import { ApiError, API_ERROR_KEY, type ErrorBody } from '@renew/billing-service/http';

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
    let status: number;
    let text: string;
    try {
      const response = await fetch(new URL(path, this.baseUrl), {
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
      status = response.status;
      // Read inside the deadline too: a billing API that stalls mid-body is as late as one that never answers.
      text = await response.text();
    } catch (error) {
      const timedOut = error instanceof Error && error.name === 'TimeoutError';
      throw new ApiError(timedOut ? 504 : 502, [{ Key: API_ERROR_KEY, Value: timedOut ? 'the billing service did not answer in time' : 'the billing service cannot be reached' }]);
    }
    const parsed = text ? safeParse(text) : undefined;
    if (status >= 200 && status < 300) {
      if (text && parsed === undefined) throw new ApiError(502, [{ Key: API_ERROR_KEY, Value: 'the billing service answered with something that is not JSON' }]);
      return parsed as T;
    }
    if (status >= 400 && status < 500 && status !== 401) {
      const errors = (parsed as Partial<ErrorBody> | undefined)?.Errors;
      if (Array.isArray(errors)) throw new ApiError(status, errors);
    }
    // A 401 here is the merchant's configuration (wrong key), not the shopper's fault.
    throw new ApiError(502, [{ Key: API_ERROR_KEY, Value: `the billing service refused the request (${status})` }]);
  }
}

function safeParse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
