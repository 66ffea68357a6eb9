/** The portal's JSON calls: same-origin, never cached, each write with the session's CSRF token. */
import type { ErrorBody, Session } from './portal-model.js';

export class ApiFailure extends Error {
  constructor(
    readonly status: number,
    message: string,
    /** The error body's items: a decline is told by its code (portal-declines.ts), not by these English words. */
    readonly errors: NonNullable<ErrorBody['Errors']> = [],
  ) {
    super(message);
  }
}

/** A failure already told in the customer's words (the card form's CAPTCHA and pause): shown as it is. */
export class PortalNotice extends Error {}

export async function portalApi<T>(
  session: Session | undefined,
  method: 'GET' | 'POST' | 'PUT' | 'DELETE',
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<T> {
  const response = await fetch(path, {
    method,
    credentials: 'same-origin',
    cache: 'no-store',
    headers: {
      ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      ...(method !== 'GET' && session ? { 'x-portal-csrf': session.csrfToken } : {}),
      ...headers,
    },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  if (response.status === 204) return undefined as T;
  const data = (await response.json().catch(() => ({}))) as T & ErrorBody;
  if (!response.ok)
    throw new ApiFailure(response.status, data.Errors?.map((e) => e.Value).join('; ') || String(response.status), data.Errors);
  return data;
}
