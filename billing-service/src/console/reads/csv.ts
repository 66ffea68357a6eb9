/*
 * CSV as RFC 4180 writes it (issue 38): fields separated by commas, records ended by CRLF, a field quoted when it
 * holds a comma, a quote, CR or LF (a quote doubled inside). A text field a spreadsheet would run as a formula
 * (starting with = + - @, a tab or CR: OWASP's CSV injection list) gets a leading apostrophe; an exact number
 * ("-12.50") is left as it is, since it is no formula and the amounts must stay exact.
 */

const FORMULA_START = /^[=+\-@\t\r]/;
const PLAIN_NUMBER = /^-?\d+(\.\d+)?$/;
const NEEDS_QUOTES = /[",\r\n]/;

export type CsvValue = string | number | null | undefined;

/** One field: empty for null, guarded against formulas, quoted when needed. */
export function csvField(value: CsvValue): string {
  if (value === null || value === undefined) return '';
  let text = String(value);
  if (FORMULA_START.test(text) && !PLAIN_NUMBER.test(text)) text = `'${text}`;
  return NEEDS_QUOTES.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** One record, CRLF-terminated. */
export function csvRecord(values: readonly CsvValue[]): string {
  return `${values.map(csvField).join(',')}\r\n`;
}
