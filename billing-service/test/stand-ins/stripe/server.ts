import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Account } from './account.js';
import { authenticate } from './auth.js';
import { serveChallenge } from './challenge.js';
import type { World } from './context.js';
import { StripeFailure, invalidRequest, unknownFailure, unrecognizedUrl } from './errors.js';
import { expandObject } from './expand.js';
import { canonicalParameters, type FormObject, parseFormBody } from './form-body.js';
import { saveAnswer, savedAnswer } from './idempotency.js';
import { newId } from './objects.js';
import { Params } from './params.js';
import { matchRoute } from './routes.js';

/** One API request as the stand-in received it, for tests to check what the adapter sent. */
export interface RecordedRequest {
  method: string;
  path: string;
  /** Header names in lower case, as Node gives them. */
  headers: Record<string, string>;
  idempotencyKey: string | null;
  /** The parameters, from the form body (POST) or the query string (GET), brackets unfolded. */
  body: FormObject;
  status: number;
  /** True when the answer was a replay of one saved under the Idempotency-Key. */
  replayed: boolean;
}

interface Answer {
  status: number;
  body: string;
  headers: Record<string, string>;
}

const MAX_BODY = 1_000_000;
const DEFAULT_VERSION = '2026-10-28.endive';

/** Handles one HTTP request: the issuer's challenge page, or an API call. */
export async function handleRequest(world: World, recorded: RecordedRequest[], request: IncomingMessage, response: ServerResponse) {
  const url = new URL(request.url ?? '/', world.baseUrl);
  const challenge = /^\/challenge\/([^/]+)$/.exec(url.pathname);
  if (challenge?.[1]) return serveChallenge(world, request, response, challenge[1]);
  const raw = await readBody(request);
  const headers = Object.fromEntries(Object.entries(request.headers).map(([name, value]) => [name, String(value)]));
  const method = request.method ?? 'GET';
  const body = parseFormBody(method === 'POST' ? raw : url.search.slice(1));
  const entry: RecordedRequest = {
    method,
    path: url.pathname,
    headers,
    idempotencyKey: headers['idempotency-key'] ?? null,
    body,
    status: 0,
    replayed: false,
  };
  recorded.push(entry);
  const answer = answerApiCall(world, entry);
  entry.status = answer.status;
  entry.replayed = answer.headers['Idempotent-Replayed'] === 'true';
  answer.headers['Stripe-Version'] = headers['stripe-version'] ?? DEFAULT_VERSION;
  response.writeHead(answer.status, { 'Content-Type': 'application/json', ...answer.headers }).end(answer.body);
}

function answerApiCall(world: World, entry: RecordedRequest): Answer {
  const requestId = newId('req');
  const key = entry.method === 'POST' ? entry.idempotencyKey : null;
  const base = { 'Request-Id': requestId, ...(key ? { 'Idempotency-Key': key } : {}) };
  let account: Account | undefined;
  try {
    account = authenticate(entry.headers.authorization, world.accounts);
    checkContentType(entry);
    const route = matchRoute(entry.method, entry.path);
    if (!route) throw unrecognizedUrl(entry.method, entry.path);
    const endpoint = `${entry.method} ${entry.path}`;
    const saved = key ? savedAnswer(account, key, endpoint, canonicalParameters(entry.body)) : undefined;
    if (saved) {
      return {
        status: saved.status,
        body: saved.body,
        headers: { ...base, 'Idempotent-Replayed': 'true', 'Original-Request': saved.requestId },
      };
    }
    const answer = run(world, account, entry, route, requestId, key);
    if (key)
      saveAnswer(account, key, {
        endpoint,
        parameters: canonicalParameters(entry.body),
        status: answer.status,
        body: answer.body,
        requestId,
      });
    return { ...answer, headers: base };
  } catch (error) {
    // Refusals before the operation began (authentication, validation, idempotency conflicts) are not saved.
    const failure = error instanceof StripeFailure ? error : unknownFailure();
    if (!(error instanceof StripeFailure)) console.error('Stripe stand-in: unexpected failure', error);
    return { status: failure.status, body: json({ error: failure.body }), headers: base };
  }
}

/** Runs the operation; its own refusals (card declines, missing objects) are answers saved under the key like successes. */
function run(
  world: World,
  account: Account,
  entry: RecordedRequest,
  route: NonNullable<ReturnType<typeof matchRoute>>,
  requestId: string,
  key: string | null,
) {
  const context = { world, account, body: entry.body, id: route.id, origin: { id: requestId, idempotency_key: key } };
  try {
    const expand = new Params({ expand: entry.body.expand ?? '' }, []).expand();
    const object = expandObject(account, route.handler(context), expand);
    return { status: 200, body: json(object) };
  } catch (error) {
    if (error instanceof StripeFailure && error.remembered) return { status: error.status, body: json({ error: error.body }) };
    throw error;
  }
}

/** Stripe reads form bodies only; a JSON body is refused rather than silently read as no parameters. */
function checkContentType(entry: RecordedRequest): void {
  const type = entry.headers['content-type']?.split(';')[0]?.trim().toLowerCase();
  if (entry.method !== 'POST' || type === undefined || type === 'application/x-www-form-urlencoded') return;
  throw invalidRequest(
    `Invalid request: unsupported Content-Type ${type}. If error persists and you need assistance, please contact support@stripe.com.`,
  );
}

/** Stripe answers with JSON indented by two spaces. */
function json(value: unknown): string {
  return `${JSON.stringify(value, null, 2)}\n`;
}

async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY) break;
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}
