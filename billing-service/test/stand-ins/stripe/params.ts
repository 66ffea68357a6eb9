import { invalidParameter, missingParameter, unknownParameter } from './errors.js';
import type { FormObject, FormValue } from './form-body.js';

/** Parameters every endpoint takes besides its own (Stripe accepts `expand` everywhere). */
const COMMON = ['expand'];

/**
 * Reads one request's parameters with Stripe's coercions: every value arrives as a string, and Stripe answers
 * `parameter_invalid_integer`, `parameter_missing`, `parameter_unknown`, … naming the parameter when one does not fit.
 */
export class Params {
  constructor(
    readonly values: FormObject,
    allowed: readonly string[],
  ) {
    for (const key of Object.keys(values)) if (!allowed.includes(key) && !COMMON.includes(key)) throw unknownParameter(key);
  }

  has(name: string): boolean {
    return this.values[name] !== undefined;
  }

  string(name: string): string | undefined {
    const value = this.values[name];
    if (value === undefined || value === '') return undefined;
    if (typeof value !== 'string') throw invalidParameter(name, `Invalid string: ${name} must be a string`, 'parameter_invalid_string');
    return value;
  }

  requiredString(name: string): string {
    const value = this.string(name);
    if (value === undefined) throw missingParameter(name);
    return value;
  }

  /** Stripe's integers are whole numbers written in decimal: `10.5` and `1e3` are refused, as Stripe does. */
  integer(name: string): number | undefined {
    const value = this.string(name);
    if (value === undefined) return undefined;
    if (!/^-?\d+$/.test(value) || !Number.isSafeInteger(Number(value))) {
      throw invalidParameter(name, `Invalid integer: ${value}`, 'parameter_invalid_integer');
    }
    return Number(value);
  }

  boolean(name: string): boolean | undefined {
    const value = this.string(name);
    if (value === undefined) return undefined;
    if (value !== 'true' && value !== 'false') throw invalidParameter(name, `Invalid boolean: ${value}`);
    return value === 'true';
  }

  oneOf<T extends string>(name: string, choices: readonly T[]): T | undefined {
    const value = this.string(name);
    if (value === undefined) return undefined;
    const match = choices.find((choice) => choice === value);
    if (!match) throw invalidParameter(name, `Invalid ${name}: must be one of ${choices.join(', ')}`);
    return match;
  }

  object(name: string): FormObject | undefined {
    const value = this.values[name];
    if (value === undefined || value === '') return undefined;
    if (typeof value === 'string' || Array.isArray(value)) throw invalidParameter(name, `Invalid object: ${name} must be a hash`);
    return value;
  }

  /** An absolute URL, as Stripe requires of `return_url`. */
  url(name: string): string | undefined {
    const value = this.string(name);
    if (value === undefined) return undefined;
    if (!URL.canParse(value)) throw invalidParameter(name, `Not a valid URL`, 'url_invalid');
    return value;
  }

  /** Metadata: string values, at most 50 keys of 40 characters with values of 500, as Stripe documents. */
  metadata(): Record<string, string> {
    const source = this.object('metadata') ?? {};
    const entries = Object.entries(source);
    if (entries.length > 50) throw invalidParameter('metadata', 'Invalid metadata: metadata can have at most 50 keys');
    const result: Record<string, string> = {};
    for (const [key, value] of entries) {
      if (typeof value !== 'string' || key.length > 40 || value.length > 500) {
        throw invalidParameter(`metadata[${key}]`, `Invalid metadata[${key}]: keys up to 40 characters, string values up to 500`);
      }
      result[key] = value;
    }
    return result;
  }

  expand(): string[] {
    const value: FormValue | undefined = this.values.expand;
    if (value === undefined || value === '') return [];
    const list = typeof value === 'string' ? [value] : Array.isArray(value) ? value : undefined;
    if (!list || list.some((item) => typeof item !== 'string'))
      throw invalidParameter('expand', 'Invalid array: expand must be a list of strings');
    return list.filter((item): item is string => typeof item === 'string');
  }
}

/** Stripe refuses confirmation-only parameters on a create that does not confirm. */
export function refuseUnlessConfirming(params: Params, confirm: boolean, names: readonly string[], kind: string): void {
  if (confirm) return;
  const given = names.find((name) => params.has(name));
  if (given) {
    throw invalidParameter(given, `The parameter ${given} cannot be passed when creating a ${kind} unless confirm is set to true.`);
  }
}
