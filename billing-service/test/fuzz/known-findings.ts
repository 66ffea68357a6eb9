/**
 * Findings the fuzz tests recognise: each is recorded (so it does not hide new
 * findings behind it) and then fails its operation's test with this message.
 * KNOWN = reported before the fuzz test existed and being fixed; NEW = found by
 * the fuzz test (issue 12). Remove an entry once its fix is in: the test then
 * fails with a reproduction if the behaviour comes back.
 */
import type { KnownFinding } from './fuzz-kit.js';

export const LONE_SURROGATE = /\\u[dD][89abAB][0-9a-fA-F]{2}|%ED%[AB][0-9A-F]%[89AB][0-9A-F]|[\ud800-\udfff]/i;
export function hasLoneSurrogate(text: string): boolean {
  // A well-formed pair (an emoji) is fine; a lone half is the finding.
  return LONE_SURROGATE.test(
    text.replace(/[\ud800-\udbff][\udc00-\udfff]/g, '').replace(/\\u[dD][89abAB][0-9a-fA-F]{2}\\u[dD][c-fC-F][0-9a-fA-F]{2}/g, ''),
  );
}
/** Nesting at least 1000 deep in a payload (arrays or the generators' {"a": chains). */
export function deeplyNested(payload: string): boolean {
  return payload.length >= 4000 && /(?:\[|\{"a":){1000}/.test(payload);
}

/** First match wins: a deeply nested body is classified as such even when it also carries a lone surrogate. */
export const KNOWN: KnownFinding[] = [
  {
    id: 'deep-nesting-500',
    message:
      "FINDING (fuzzing, issue 12; fixed: bodies deeper than 64 levels are a 400, checked without recursion; this message means it is back): a JSON body nested a few thousand levels deep (e.g. POST /v1/customernotes with '['.repeat(6000) + ']'.repeat(6000); from about 4000 levels, the threshold depends on the stack in use) answers 500: RangeError 'Maximum call stack size exceeded' in the recursive text check of the validator compiler (src/http/validation.ts, unstorableText, formerly findNulCharacter)",
    matches: (req, res) => res.statusCode === 500 && deeplyNested(req.payload ?? ''),
  },
  {
    id: 'lone-surrogate-500',
    message:
      'KNOWN FINDING (fixed in 485be9e; this message means it is back): a lone UTF-16 surrogate in a string (e.g. POST /v1/customernotes {"customerId":1,"note":"\\ud800"}) answers 500 instead of 400',
    matches: (req, res) => res.statusCode === 500 && (hasLoneSurrogate(req.payload ?? '') || hasLoneSurrogate(req.url)),
  },
  {
    id: 'max-param-length-414',
    message:
      "KNOWN FINDING (fixed in 485be9e; this message means it is back): a path id longer than Fastify's maxParamLength (100) answers 414 in Fastify's own body (FST_ERR_MAX_PARAM_LENGTH) instead of the spec's error body",
    matches: (_req, res) => res.statusCode === 414 && res.body.includes('FST_ERR_MAX_PARAM_LENGTH'),
  },
  {
    id: 'bad-url-400',
    message:
      "NEW FINDING (fuzzing, issue 12; answered in the spec's body since 485be9e, this message means it is back): a path with a malformed percent-escape (e.g. GET /v1/customers/%zz, /v1/customers/%, /v1/customers/%ED%A0%80) answers 400 in Fastify's own body (FST_ERR_BAD_URL) instead of the spec's error body",
    matches: (_req, res) => res.statusCode === 400 && res.body.includes('FST_ERR_BAD_URL'),
  },
  {
    id: 'deep-nesting-cpu',
    kind: 'cpu',
    message:
      "FINDING (fuzzing, issue 12; fixed: bodies deeper than 64 levels are a 400, checked without recursion; this message means it is back): a JSON body nested a few thousand levels deep costs over 100 ms of server CPU even when refused with 400 (e.g. PUT /v1/subscriptions with '['.repeat(5000) + ']'.repeat(5000): ~100-150 ms; 100000 levels in 200 KB: ~570 ms): the recursive text check (src/http/validation.ts, unstorableText, formerly findNulCharacter) copies the path array at every level, quadratic in the depth",
    matches: (req) => deeplyNested(req.payload ?? ''),
  },
];
