import type { Account } from './account.js';
import { invalidRequest } from './errors.js';

/** Stripe expands at most four levels deep. */
const MAX_DEPTH = 4;

/**
 * `expand[]=latest_charge`, `expand[]=payment_method`, `expand[]=latest_charge.payment_intent`…: an id field becomes
 * the object it names, as Stripe does. A field that holds no id is refused with Stripe's message.
 */
export function expandObject(account: Account, object: object, paths: readonly string[]): object {
  let result: Record<string, unknown> = structuredClone(object) as Record<string, unknown>;
  for (const path of paths) {
    const parts = path.split('.');
    if (parts.length > MAX_DEPTH)
      throw invalidRequest(`You cannot expand more than ${MAX_DEPTH} levels of a property. Property: ${path}`, undefined, 'expand');
    result = expandPath(account, result, parts, path);
  }
  return result;
}

function expandPath(account: Account, object: Record<string, unknown>, parts: string[], path: string): Record<string, unknown> {
  const [head, ...rest] = parts;
  if (head === undefined) return object;
  const value = object[head];
  if (value === null) return object;
  let next: object | undefined;
  if (typeof value === 'string') next = account.find(value);
  else if (typeof value === 'object' && value !== undefined && rest.length > 0) next = value;
  if (!next) throw invalidRequest(`This property cannot be expanded (${path}).`, undefined, 'expand');
  const expanded = expandPath(account, structuredClone(next) as Record<string, unknown>, rest, path);
  return { ...object, [head]: expanded };
}
