/**
 * What a merchant may change in the hosted card fields' look: a few values, each
 * checked against what it must be (a colour, a length, font names), never CSS
 * text. Pure and free of Node imports: the capture host refuses a bad value
 * (400 keyed on it), the widget drops what would be refused before it asks, and
 * the frame's script applies the values as CSS custom properties through the
 * CSSOM (which the frame's Content Security Policy allows, unlike inline style).
 */
export const CARD_FIELDS_STYLE_KEYS = [
  'fontFamily',
  'fontSize',
  'textColor',
  'backgroundColor',
  'borderColor',
  'focusColor',
  'errorColor',
  'borderRadius',
] as const;
export type CardFieldsStyleKey = (typeof CARD_FIELDS_STYLE_KEYS)[number];
export type CardFieldsStyle = Partial<Record<CardFieldsStyleKey, string>>;

/** The custom property of card-fields.css each key sets. */
export const STYLE_PROPERTY: Record<CardFieldsStyleKey, string> = {
  fontFamily: '--fields-font',
  fontSize: '--fields-font-size',
  textColor: '--fields-text',
  backgroundColor: '--fields-background',
  borderColor: '--fields-border',
  focusColor: '--fields-focus',
  errorColor: '--fields-error',
  borderRadius: '--fields-radius',
};

const GENERIC_FAMILIES = new Set([
  'serif',
  'sans-serif',
  'monospace',
  'cursive',
  'fantasy',
  'system-ui',
  'ui-serif',
  'ui-sans-serif',
  'ui-monospace',
  'ui-rounded',
  'math',
  'emoji',
]);
/** A family name made of words: letters, digits, spaces and hyphens, starting with a letter. */
const FAMILY_NAME = /^[A-Za-z][A-Za-z0-9 -]{0,47}$/;
const MAX_FAMILIES = 6;

const HEX_COLOUR = /^#(?:[0-9a-f]{3,4}|[0-9a-f]{6}|[0-9a-f]{8})$/i;
const NUMBER = String.raw`\d{1,3}(?:\.\d{1,4})?`;
const ALPHA = String.raw`(?:0|1|0?\.\d{1,4}|\d{1,3}%)`;
/** rgb()/rgba()/hsl()/hsla() with numbers only, in the comma syntax (what getComputedStyle gives) or the space syntax. */
const FUNCTION_COLOUR = new RegExp(
  String.raw`^(?:rgba?|hsla?)\(\s*${NUMBER}(?:%|deg)?\s*(?:,\s*${NUMBER}%?\s*,\s*${NUMBER}%?\s*(?:,\s*${ALPHA}\s*)?|\s+${NUMBER}%?\s+${NUMBER}%?\s*(?:\/\s*${ALPHA}\s*)?)\)$`,
  'i',
);
const LENGTH = /^(\d{1,2}(?:\.\d{1,3})?)(px|rem|em)$/;

type Check = { value: string } | { problem: string };

function fontFamily(raw: string): Check {
  const families = raw.split(',').map((f) =>
    f
      .trim()
      .replace(/^(["'])(.*)\1$/, '$2')
      .trim(),
  );
  if (families.length > MAX_FAMILIES) return { problem: `at most ${MAX_FAMILIES} font families` };
  const parts: string[] = [];
  for (const family of families) {
    if (GENERIC_FAMILIES.has(family.toLowerCase())) parts.push(family.toLowerCase());
    else if (FAMILY_NAME.test(family)) parts.push(`"${family.replace(/\s+/g, ' ')}"`);
    else return { problem: 'must be font family names (letters, digits, spaces, hyphens) separated by commas' };
  }
  return { value: parts.join(', ') };
}

/** A length in px (from `min` to `max`), or rem/em (a 16th of that). */
function length(min: number, max: number) {
  return (raw: string): Check => {
    const match = LENGTH.exec(raw) ?? (raw === '0' ? ['0', '0', 'px'] : null);
    const problem = `must be a length from ${min}px to ${max}px (px, rem or em)`;
    if (!match) return { problem };
    const size = Number(match[1]) * (match[2] === 'px' ? 1 : 16);
    return size < min || size > max ? { problem } : { value: `${match[1]}${match[2]}` };
  };
}

function colour(raw: string): Check {
  return HEX_COLOUR.test(raw) || FUNCTION_COLOUR.test(raw)
    ? { value: raw.toLowerCase() }
    : { problem: 'must be a colour: #rgb, #rrggbb, rgb(), rgba(), hsl() or hsla()' };
}

const CHECKS: Record<CardFieldsStyleKey, (raw: string) => Check> = {
  fontFamily,
  fontSize: length(10, 32),
  textColor: colour,
  backgroundColor: colour,
  borderColor: colour,
  focusColor: colour,
  errorColor: colour,
  borderRadius: length(0, 32),
};

export function isCardFieldsStyleKey(key: string): key is CardFieldsStyleKey {
  return (CARD_FIELDS_STYLE_KEYS as readonly string[]).includes(key);
}

/** Every given value checked: the style to apply, and a problem per refused key (nothing of a refused value is repeated). */
export function parseCardFieldsStyle(given: Partial<Record<CardFieldsStyleKey, unknown>>): {
  style: CardFieldsStyle;
  errors: Array<{ Key: string; Value: string; Code: 'value_invalid' }>;
} {
  const style: CardFieldsStyle = {};
  const errors: Array<{ Key: string; Value: string; Code: 'value_invalid' }> = [];
  for (const key of CARD_FIELDS_STYLE_KEYS) {
    const raw = given[key];
    if (raw === undefined) continue;
    const check = typeof raw === 'string' && raw.length <= 300 ? CHECKS[key](raw.trim()) : { problem: 'must be a short text' };
    if ('value' in check) style[key] = check.value;
    else errors.push({ Key: key, Value: check.problem, Code: 'value_invalid' });
  }
  return { style, errors };
}

/**
 * The merchant's theme as the widget finds it (computed style of the checkout:
 * its font, size and colour, and the --renew-* custom properties), keeping only
 * values the capture host accepts, so a page's odd value never breaks the frame.
 */
export function cardFieldsStyleFrom(read: (property: string) => string): CardFieldsStyle {
  const candidates: Partial<Record<CardFieldsStyleKey, string>> = {
    fontFamily: read('--renew-font').trim() || read('font-family'),
    fontSize: read('font-size'),
    textColor: read('color'),
    focusColor: read('--renew-accent'),
    errorColor: read('--renew-error'),
    borderRadius: read('--renew-radius'),
  };
  const style: CardFieldsStyle = {};
  for (const key of CARD_FIELDS_STYLE_KEYS) {
    const raw = candidates[key]?.trim();
    if (!raw) continue;
    const check = key === 'fontFamily' ? fontFamilyKeepingGoodNames(raw) : CHECKS[key](raw);
    if ('value' in check) style[key] = check.value;
  }
  return style;
}

/** A page's font stack may name fonts we refuse (`"Font Awesome 6"` is fine, `"Ünïcode"` is not): keep the good ones. */
function fontFamilyKeepingGoodNames(raw: string): Check {
  const kept = raw
    .split(',')
    .map((f) => f.trim())
    .filter((f) => 'value' in fontFamily(f))
    .slice(0, MAX_FAMILIES);
  return kept.length > 0 ? fontFamily(kept.join(',')) : { problem: 'no usable font family' };
}
