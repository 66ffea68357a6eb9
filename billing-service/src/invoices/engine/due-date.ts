import { TERMS } from '../../catalog/schema.js';
import { addDays, dateInMonth, formatDate, monthIndex, parseDate } from './dates.js';
import type { Term } from './types.js';

/**
 * The due date of an invoice dated `effectiveDate` (YYYY-MM-DD) under payment terms `term`:
 * NetN = effectiveDate + N days (Net0 = the same day); MFI1 ("month following invoice") = the
 * first day of the month after the effective date (2026-12-15 → 2027-01-01; 2026-03-01 → 2026-04-01).
 */
export function dueDate(effectiveDate: string, term: Term): string {
  const date = parseDate(effectiveDate, 'effectiveDate');
  if (!(TERMS as readonly string[]).includes(term)) throw new RangeError(`term: unknown payment term ${JSON.stringify(term)}`);
  if (term === 'MFI1') return formatDate(dateInMonth(monthIndex(date) + 1, 1));
  return addDays(effectiveDate, Number(term.slice('Net'.length)));
}
