import type { z } from 'zod';
import { ApiError, fieldKey } from './errors.js';

/**
 * Property names in request bodies and query strings match case-insensitively,
 * at every depth: the vendor's API binds `FirstName`, `firstname` and
 * `firstName` alike, and its clients rely on it. The zod schema of the request
 * says which names exist; `canonicalKeys(schema)` returns a function that
 * renames each property to the schema's spelling before validation. Names the
 * schema does not know are left as sent (a strict schema then refuses them).
 * Two spellings of one field in the same object are a 400 naming the field.
 */

/** What a schema tells about the names inside a value: an object's fields, an array's elements, a record's values. */
interface KeyShape {
  fields: Map<string, { key: string; shape: () => KeyShape | undefined }>;
  element?: () => KeyShape | undefined;
  values?: () => KeyShape | undefined;
}

type Def = { type: string; [k: string]: unknown };
const defOf = (schema: unknown): Def => (schema as { _zod: { def: Def } })._zod.def;

const shapes = new WeakMap<object, KeyShape | null>();

function shapeOf(schema: z.ZodType): KeyShape | undefined {
  const cached = shapes.get(schema);
  if (cached !== undefined) return cached ?? undefined;
  shapes.set(schema, null); // a recursive (lazy) schema sees "nothing known" while it is being built
  const shape = buildShape(schema);
  shapes.set(schema, shape ?? null);
  return shape;
}

function buildShape(schema: z.ZodType): KeyShape | undefined {
  const def = defOf(schema);
  switch (def.type) {
    case 'object': {
      const fields: KeyShape['fields'] = new Map();
      for (const [key, child] of Object.entries(def.shape as Record<string, z.ZodType>)) {
        const known = fields.get(key.toLowerCase());
        // A schema bug, caught when the route is built: one of the two could never be sent.
        if (known) throw new Error(`request schema names one field twice: ${known.key} and ${key}`);
        fields.set(key.toLowerCase(), { key, shape: () => shapeOf(child) });
      }
      return { fields };
    }
    case 'array':
      return { fields: new Map(), element: () => shapeOf(def.element as z.ZodType) };
    case 'record':
      return { fields: new Map(), values: () => shapeOf(def.valueType as z.ZodType) };
    case 'optional':
    case 'nullable':
    case 'default':
    case 'prefault':
    case 'catch':
    case 'readonly':
    case 'nonoptional':
      return shapeOf(def.innerType as z.ZodType);
    case 'pipe':
      return shapeOf(def.in as z.ZodType);
    case 'lazy':
      return shapeOf((def.getter as () => z.ZodType)());
    case 'union':
      return mergeShapes((def.options as z.ZodType[]).map(shapeOf));
    case 'intersection':
      return mergeShapes([shapeOf(def.left as z.ZodType), shapeOf(def.right as z.ZodType)]);
    default:
      return undefined;
  }
}

/** A union's names are those of all its options; a name two options share keeps both options' inner names. */
function mergeShapes(parts: Array<KeyShape | undefined>): KeyShape | undefined {
  const present = parts.filter((p): p is KeyShape => p !== undefined);
  if (present.length <= 1) return present[0];
  const fields: KeyShape['fields'] = new Map();
  for (const part of present) {
    for (const [lower, field] of part.fields) {
      const existing = fields.get(lower);
      fields.set(lower, existing ? { key: existing.key, shape: () => mergeShapes([existing.shape(), field.shape()]) } : field);
    }
  }
  const elements = present.flatMap((p) => (p.element ? [p.element] : []));
  const values = present.flatMap((p) => (p.values ? [p.values] : []));
  return {
    fields,
    element: elements.length ? () => mergeShapes(elements.map((element) => element())) : undefined,
    values: values.length ? () => mergeShapes(values.map((value) => value())) : undefined,
  };
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** Renames properties to the schema's spelling; returns the same value when nothing changes. */
function canonicalize(value: unknown, shape: KeyShape | undefined, path: PropertyKey[]): unknown {
  if (!shape) return value;
  if (Array.isArray(value)) {
    const elementShape = shape.element?.();
    if (!elementShape) return value;
    let copy: unknown[] | undefined;
    for (let i = 0; i < value.length; i++) {
      const item = canonicalize(value[i], elementShape, [...path, i]);
      if (item !== value[i]) {
        copy ??= value.slice();
        copy[i] = item;
      }
    }
    return copy ?? value;
  }
  if (!isPlainObject(value)) return value;
  let changed = false;
  const result: Record<string, unknown> = {};
  const sentAs = new Map<string, string>();
  for (const [sent, child] of Object.entries(value)) {
    const field = shape.fields.get(sent.toLowerCase());
    const key = field?.key ?? sent;
    const earlier = sentAs.get(key);
    if (earlier !== undefined) {
      throw ApiError.badRequest(
        `is given twice (as ${JSON.stringify(earlier)} and ${JSON.stringify(sent)}); property names are case-insensitive`,
        fieldKey([...path, key]),
        'value_invalid',
      );
    }
    sentAs.set(key, sent);
    const childShape = field ? field.shape() : shape.values?.();
    const canonicalChild = canonicalize(child, childShape, [...path, key]);
    if (key !== sent || canonicalChild !== child) changed = true;
    result[key] = canonicalChild;
  }
  return changed ? result : value;
}

/** For one request schema: a function giving a body or query its canonical property names (400 on two spellings of one). */
export function canonicalKeys(schema: z.ZodType): (value: unknown) => unknown {
  return (value) => canonicalize(value, shapeOf(schema), []);
}
