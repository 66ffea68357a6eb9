import { ApiError, fieldKey } from './errors.js';

/**
 * A JSON object that names one property twice is refused: JSON.parse keeps the
 * last value silently, and a proxy or logger in front of us may have kept the
 * first, so the two would act on different requests. JSON.parse cannot tell (a
 * reviver sees the result only), so the text is looked at again, cheaply: the
 * property names in the text are counted and compared with the properties of
 * the parsed value, and only when they differ is the text walked to name the
 * duplicate. Both passes are loops, not recursion (a deeply nested body must
 * not overflow the stack).
 */

/** 400 keyed on the path of the first property named twice in one object; `value` is `JSON.parse(text)`. */
export function refuseDuplicateKeys(text: string, value: unknown): void {
  if (value === null || typeof value !== 'object') return;
  if (countPropertyNames(text) === countProperties(value)) return;
  const path = firstDuplicatePath(text);
  if (path) throw ApiError.badRequest('is given more than once in the same object', fieldKey(path), 'value_invalid');
}

/** The index of the quote that closes the string opened at `open`. */
function closingQuote(text: string, open: number): number {
  let end = text.indexOf('"', open + 1);
  for (;;) {
    if (end === -1) return text.length; // not valid JSON: nothing more to count
    let backslashes = 0;
    while (text.charCodeAt(end - 1 - backslashes) === 0x5c) backslashes++;
    if (backslashes % 2 === 0) return end;
    end = text.indexOf('"', end + 1);
  }
}

/** Whether the first character after `from` that is not JSON whitespace is a colon. */
function colonFollows(text: string, from: number): boolean {
  for (let i = from; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x3a) return true;
    if (c !== 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09) return false;
  }
  return false;
}

/** How many property names a valid JSON text has: strings followed by a colon. */
function countPropertyNames(text: string): number {
  let count = 0;
  for (let open = text.indexOf('"'); open !== -1; ) {
    const close = closingQuote(text, open);
    if (colonFollows(text, close + 1)) count++;
    open = text.indexOf('"', close + 1);
  }
  return count;
}

/** How many properties the objects of a parsed JSON value have, all together. */
function countProperties(root: object): number {
  let count = 0;
  const pending: unknown[] = [root];
  while (pending.length > 0) {
    const value = pending.pop();
    if (value === null || typeof value !== 'object') continue;
    if (Array.isArray(value)) {
      for (const item of value) if (item !== null && typeof item === 'object') pending.push(item);
      continue;
    }
    for (const key in value) {
      count++;
      const item = (value as Record<string, unknown>)[key];
      if (item !== null && typeof item === 'object') pending.push(item);
    }
  }
  return count;
}

type Frame = { names: Set<string>; name: string } | { index: number };

/** The path to the first property named twice in one object of a valid JSON text (names compared after unescaping). */
function firstDuplicatePath(text: string): PropertyKey[] | null {
  const frames: Frame[] = [];
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '{') frames.push({ names: new Set(), name: '' });
    else if (c === '[') frames.push({ index: 0 });
    else if (c === '}' || c === ']') frames.pop();
    else if (c === ',') {
      const top = frames[frames.length - 1];
      if (top && 'index' in top) top.index++;
    } else if (c === '"') {
      const close = closingQuote(text, i);
      const top = frames[frames.length - 1];
      if (top && 'names' in top && colonFollows(text, close + 1)) {
        const raw = text.slice(i + 1, close);
        const name = raw.includes('\\') ? (JSON.parse(`"${raw}"`) as string) : raw;
        if (top.names.has(name)) return [...frames.slice(0, -1).map((f) => ('index' in f ? f.index : f.name)), name];
        top.names.add(name);
        top.name = name;
      }
      i = close;
    }
  }
  return null;
}
