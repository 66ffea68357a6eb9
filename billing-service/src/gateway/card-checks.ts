import { Refusal } from '../refusals/refusal.js';
import { wallClockNow } from '../clock/account-clock.js';
import { cardProblem, normalizeCardNumber, type CardInput } from './card-rules.js';

export type { CardInput } from './card-rules.js';

/**
 * `cardProblem` as the API answers it: a 400 keyed on the field (under `prefix`). A card expires on
 * the real calendar (the gateway's), never on an account's test clock: `now` is the wall clock unless a test gives one.
 */
export function checkCard(card: CardInput, now = wallClockNow(), prefix = ''): { number: string; fullYear: number } {
  const problem = cardProblem(card, now);
  if (problem) throw Refusal.invalid(problem.message, `${prefix}${problem.field}`, problem.code);
  return { number: normalizeCardNumber(card.cardNumber), fullYear: 2000 + card.expirationYear };
}
