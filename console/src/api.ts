/**
 * The console's one way to the server: `/console/api/...` with the session cookie, JSON both ways, and the
 * session's CSRF token on every write. A 401 anywhere means the session is gone: listeners send the operator to sign-in.
 */

export type Role = 'owner' | 'billing' | 'support' | 'viewer';
export const ROLES: readonly Role[] = ['owner', 'billing', 'support', 'viewer'];

export interface Operator {
  id: number | string;
  email: string;
  name: string;
  role: Role;
  totpEnabled: boolean;
}

export interface ApiErrorItem {
  key: string;
  message: string;
  Code?: string;
}

/** A refusal from the server: its status and the error items of the body (both spellings the API uses). */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly items: ApiErrorItem[],
    readonly headers: Headers,
  ) {
    super(items.map((item) => item.message).join(' ') || `HTTP ${status}`);
  }
  get code(): string | undefined {
    return this.items.find((item) => item.Code)?.Code;
  }
}

export interface ApiAnswer<T> {
  status: number;
  body: T;
  headers: Headers;
}

const BASE = '/console/api';
let csrfToken: string | undefined;
const sessionEndedListeners = new Set<() => void>();

export function setCsrfToken(token: string | undefined) {
  csrfToken = token;
}

export function onSessionEnded(listener: () => void): () => void {
  sessionEndedListeners.add(listener);
  return () => sessionEndedListeners.delete(listener);
}

/** A path under /console/api (`/session`, `/v1/customers?…`) as the browser addresses it: links (PDFs) use it too. */
export function apiUrl(path: string): string {
  return `${BASE}${path}`;
}

/** Normalises both error shapes: the contract's `{errors:[{key,message,Code}]}` and the API's `{Errors:[{Key,Value,Code}]}`. */
function errorItems(body: unknown): ApiErrorItem[] {
  if (!body || typeof body !== 'object') return [];
  const record = body as Record<string, unknown>;
  const list = (record.errors ?? record.Errors) as Array<Record<string, unknown>> | undefined;
  if (!Array.isArray(list)) return [];
  return list.map((item) => ({
    key: String(item.key ?? item.Key ?? ''),
    message: String(item.message ?? item.Value ?? item.value ?? ''),
    ...(item.Code || item.code ? { Code: String(item.Code ?? item.code) } : {}),
  }));
}

export interface RequestOptions {
  body?: unknown;
  headers?: Record<string, string>;
  /** Do not announce a 401 (sign-in and invitation pages expect it). */
  quietUnauthorized?: boolean;
}

export async function request<T = unknown>(method: string, path: string, options: RequestOptions = {}): Promise<ApiAnswer<T>> {
  const headers: Record<string, string> = { accept: 'application/json', ...options.headers };
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  if (method !== 'GET' && method !== 'HEAD' && csrfToken) headers['x-csrf-token'] = csrfToken;
  const response = await fetch(apiUrl(path), {
    method,
    headers,
    credentials: 'same-origin',
    ...(options.body !== undefined ? { body: JSON.stringify(options.body) } : {}),
  });
  const text = await response.text();
  let body: unknown = null;
  if (text) {
    try {
      body = JSON.parse(text);
    } catch {
      body = text;
    }
  }
  if (!response.ok) {
    if (response.status === 401 && !options.quietUnauthorized) for (const listener of sessionEndedListeners) listener();
    throw new ApiError(response.status, errorItems(body), response.headers);
  }
  return { status: response.status, body: body as T, headers: response.headers };
}

export const get = async <T>(path: string, options?: RequestOptions) => (await request<T>('GET', path, options)).body;
export const post = async <T>(path: string, body?: unknown, options?: RequestOptions) =>
  (await request<T>('POST', path, { ...options, body: body ?? {} })).body;

/** A query string from the parameters that have a value. */
export function query(params: Record<string, string | number | undefined | null>): string {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(params))
    if (value !== undefined && value !== null && value !== '') search.set(name, String(value));
  const text = search.toString();
  return text ? `?${text}` : '';
}

/** What an operator's role lets them do; the server checks again (buttons a role cannot use are not shown). */
export const can = {
  act: (role: Role | undefined) => role === 'owner' || role === 'billing',
  refund: (role: Role | undefined) => role === 'owner' || role === 'billing',
  /** Void, write off, credit an invoice (issue 40). */
  correctInvoices: (role: Role | undefined) => role === 'owner' || role === 'billing',
  note: (role: Role | undefined) => role === 'owner' || role === 'billing' || role === 'support',
  portalLink: (role: Role | undefined) => role === 'owner' || role === 'billing' || role === 'support',
  manageTeam: (role: Role | undefined) => role === 'owner',
  manageApiKeys: (role: Role | undefined) => role === 'owner',
  webhookEndpoints: (role: Role | undefined) => role === 'owner',
  resend: (role: Role | undefined) => role === 'owner',
};
