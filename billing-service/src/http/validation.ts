import type { FastifySchemaCompiler } from 'fastify';
import type { z } from 'zod';
import { canonicalKeys } from './case-insensitive-keys.js';
import type { ErrorItem } from './error-codes.js';
import { ApiError, clientError, fieldKey } from './errors.js';

/**
 * Validates params, query and body with their zod schemas. A failure becomes an
 * ApiError listing every problem keyed by its field path, so the error handler
 * needs no special case for it.
 */
export const zodValidatorCompiler: FastifySchemaCompiler<z.ZodType> = ({ schema, httpPart }) => {
  // Body and query property names are case-insensitive (see case-insensitive-keys.ts); path params are the route's own.
  const canonical = httpPart === 'body' || httpPart === 'querystring' ? canonicalKeys(schema) : (value: unknown) => value;
  return (input) => {
    try {
      // No body (none sent, or empty; Fastify passes it as null): validated as {}, so each missing required field is named.
      const data = canonical(httpPart === 'body' && (input === undefined || input === null) ? {} : input);
      // PostgreSQL text cannot hold NUL; refuse it here rather than fail in the database.
      const unstorable = unstorableText(data);
      if (unstorable) return { error: ApiError.badRequest(unstorable.problem, fieldKey(unstorable.path), 'value_invalid') };
      const result = schema.safeParse(data);
      if (result.success) return { value: result.data };
      return { error: validationError(result.error.issues, data) };
    } catch (error) {
      const answered = clientError(error);
      if (answered) return { error: answered };
      throw error;
    }
  };
};

/**
 * One rule for every text a request carries: it must be storable as PostgreSQL text and JSON.
 * The NUL character is not; nor is a lone UTF-16 surrogate ("\ud800" in JSON), which one column
 * would store as U+FFFD and a JSON column refuse. Both are a 400 keyed on the field.
 */
/** With the u flag a surrogate pair is one code point: only a lone surrogate matches. */
const LONE_SURROGATE = /\p{Cs}/u;

/** Deeper than any request of this API needs; deeper bodies are refused (a deep one cost a stack overflow). */
export const MAX_BODY_DEPTH = 64;

export function unstorableText(value: unknown, path: PropertyKey[] = []): { path: PropertyKey[]; problem: string } | undefined {
  // Iterative, each node keeping a link to its parent: the path is built only for a problem found.
  type Node = { value: unknown; key: PropertyKey | undefined; parent: Node | undefined; depth: number };
  const pathOf = (node: Node) => {
    const keys: PropertyKey[] = [];
    for (let n: Node | undefined = node; n?.key !== undefined; n = n.parent) keys.unshift(n.key);
    return [...path, ...keys];
  };
  const stack: Node[] = [{ value, key: undefined, parent: undefined, depth: 0 }];
  while (stack.length > 0) {
    const node = stack.pop();
    if (!node) break;
    const v = node.value;
    if (typeof v === 'string') {
      if (v.includes('\u0000')) return { path: pathOf(node), problem: 'must not contain the NUL character' };
      if (LONE_SURROGATE.test(v)) return { path: pathOf(node), problem: 'must be valid Unicode text (a lone surrogate is not)' };
      continue;
    }
    if (v === null || typeof v !== 'object') continue;
    if (node.depth >= MAX_BODY_DEPTH) return { path: pathOf(node), problem: `is nested too deeply (more than ${MAX_BODY_DEPTH} levels)` };
    if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) stack.push({ value: v[i], key: i, parent: node, depth: node.depth + 1 });
    } else {
      const entries = Object.entries(v);
      for (let i = entries.length - 1; i >= 0; i--) {
        const [key, child] = entries[i] as [string, unknown];
        const childNode = { value: child, key, parent: node, depth: node.depth + 1 };
        stack.push(childNode, { value: key, key, parent: node, depth: node.depth + 1 });
      }
    }
  }
  return undefined;
}

/** The issues as the error body lists them: value_required for a field missing or empty in `input`, value_invalid otherwise. */
export function validationError(issues: z.core.$ZodIssue[], input?: unknown): ApiError {
  const errors: ErrorItem[] = [];
  for (const issue of issues) {
    if (issue.code === 'unrecognized_keys') {
      for (const k of issue.keys) errors.push({ Key: fieldKey([...issue.path, k]), Value: 'is not a known field', Code: 'value_invalid' });
    } else {
      const value = valueAt(input, issue.path);
      // Without the input (a caller validating on its own), a missing field cannot be told apart.
      const missing = input !== undefined && (value === undefined || value === '');
      const code = missing ? 'value_required' : 'value_invalid';
      errors.push({ Key: fieldKey(issue.path), Value: issue.message, Code: code });
    }
  }
  return new ApiError(400, errors);
}

/** The value at a zod issue's path in the input, undefined where the path leaves it. */
function valueAt(input: unknown, path: ReadonlyArray<PropertyKey>): unknown {
  let value = input;
  for (const part of path) {
    if (value === null || typeof value !== 'object') return undefined;
    value = (value as Record<PropertyKey, unknown>)[part];
  }
  return value;
}

/**
 * Responses are typed by their zod schemas at compile time and documented in
 * OpenAPI from them; at run time they are plain JSON.stringify, which keeps the
 * hot path fast.
 */
export const jsonSerializerCompiler = () => (data: unknown) => JSON.stringify(data);
