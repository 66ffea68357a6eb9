/**
 * Stripe's request encoding: `application/x-www-form-urlencoded` with brackets for nesting, as its API reference shows
 * (`metadata[order]=42`, `card[exp_month]=12`) and arrays either indexed (`expand[0]=x`, what stripe-node sends) or
 * appended (`expand[]=x`, what curl examples use). GET requests carry the same encoding in the query string.
 */

export type FormValue = string | FormValue[] | FormObject;
export interface FormObject {
  [key: string]: FormValue;
}

/** Parses a form body into nested objects and arrays; every leaf stays a string (Stripe coerces per parameter). */
export function parseFormBody(body: string): FormObject {
  const root: Node = new Map();
  for (const pair of body.split('&')) {
    if (pair === '') continue;
    const equals = pair.indexOf('=');
    const rawKey = equals === -1 ? pair : pair.slice(0, equals);
    const rawValue = equals === -1 ? '' : pair.slice(equals + 1);
    insert(root, keyPath(decode(rawKey)), decode(rawValue));
  }
  return toObject(root);
}

/** The body's parameters in one canonical string: the idempotency layer compares parameters, not their order. */
export function canonicalParameters(value: FormValue): string {
  if (typeof value === 'string') return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(canonicalParameters).join(',')}]`;
  const keys = Object.keys(value).sort();
  return `{${keys.map((key) => `${JSON.stringify(key)}:${canonicalParameters(value[key] ?? '')}`).join(',')}}`;
}

// Nodes while parsing: a Map keeps `__proto__` and friends as plain keys, so no body can reach Object.prototype.
type Node = Map<string, Node | string>;
const APPEND = '';

function decode(text: string): string {
  try {
    return decodeURIComponent(text.replace(/\+/g, ' '));
  } catch {
    return text;
  }
}

/** `a[b][]` → ['a', 'b', ''], the empty segment meaning "append". */
function keyPath(key: string): string[] {
  const open = key.indexOf('[');
  if (open <= 0 || !key.endsWith(']')) return [key];
  const rest = key.slice(open + 1, -1).split('][');
  return [key.slice(0, open), ...rest];
}

function insert(node: Node, path: string[], value: string): void {
  const [head, ...rest] = path;
  if (head === undefined) return;
  const key = head === APPEND ? String(node.size) : head;
  if (rest.length === 0) {
    node.set(key, value);
    return;
  }
  const existing = node.get(key);
  const child: Node = existing instanceof Map ? existing : new Map();
  node.set(key, child);
  insert(child, rest, value);
}

/** A node whose keys are all indices becomes an array, in index order (Stripe accepts gaps and any order). */
function toValue(node: Node | string): FormValue {
  if (typeof node === 'string') return node;
  const keys = [...node.keys()];
  if (keys.length > 0 && keys.every((key) => /^\d+$/.test(key))) {
    return keys
      .map(Number)
      .sort((a, b) => a - b)
      .map((index) => toValue(node.get(String(index)) ?? ''));
  }
  return toObject(node);
}

function toObject(node: Node): FormObject {
  const result: FormObject = Object.create(null);
  for (const [key, child] of node) result[key] = toValue(child);
  return result;
}
