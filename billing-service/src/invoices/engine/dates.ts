/**
 * Calendar arithmetic on UTC dates written YYYY-MM-DD, with integer day numbers
 * (days since 1970-01-01). Pure: no Date objects, no clock.
 */
export interface CalendarDate {
  year: number;
  /** 1-12 */
  month: number;
  day: number;
}

const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

export function isLeapYear(year: number): boolean {
  return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
}

/** Days in a month (month 1-12). */
export function daysInMonth(year: number, month: number): number {
  if (month === 2) return isLeapYear(year) ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}

/** Parses a YYYY-MM-DD date (year 1-9999); RangeError names `field` when it is not a real date. */
export function parseDate(value: string, field = 'date'): CalendarDate {
  const match = typeof value === 'string' ? ISO_DATE.exec(value) : null;
  if (!match) throw new RangeError(`${field}: expected a YYYY-MM-DD date, got ${JSON.stringify(value)}`);
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  if (year < 1 || month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) {
    throw new RangeError(`${field}: ${value} is not a calendar date`);
  }
  return { year, month, day };
}

export function formatDate({ year, month, day }: CalendarDate): string {
  if (year < 1 || year > 9999) throw new RangeError(`date out of range: year ${year}`);
  return `${String(year).padStart(4, '0')}-${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')}`;
}

/** Days since 1970-01-01 (proleptic Gregorian calendar). */
export function toDayNumber({ year, month, day }: CalendarDate): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yoe = y - era * 400;
  const mp = (month + 9) % 12;
  const doy = Math.floor((153 * mp + 2) / 5) + day - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146097 + doe - 719468;
}

export function fromDayNumber(dayNumber: number): CalendarDate {
  const z = dayNumber + 719468;
  const era = Math.floor(z / 146097);
  const doe = z - era * 146097;
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36524) - Math.floor(doe / 146096)) / 365);
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const day = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const month = mp < 10 ? mp + 3 : mp - 9;
  return { year: yoe + era * 400 + (month <= 2 ? 1 : 0), month, day };
}

/** `date` + `days` (may be negative). */
export function addDays(date: string, days: number): string {
  return formatDate(fromDayNumber(toDayNumber(parseDate(date)) + days));
}

/** Days from `from` to `to` (negative when `to` is earlier). */
export function daysBetween(from: string, to: string): number {
  return toDayNumber(parseDate(to)) - toDayNumber(parseDate(from));
}

/** Months since year 0 (January of year 0 = 0): a month-only position for month arithmetic. */
export function monthIndex({ year, month }: CalendarDate): number {
  return year * 12 + (month - 1);
}

/** Day `day` of the month at `index`, clamped to that month's length (31 in February → 28/29). */
export function dateInMonth(index: number, day: number): CalendarDate {
  const year = Math.floor(index / 12);
  const month = index - year * 12 + 1;
  return { year, month, day: Math.min(day, daysInMonth(year, month)) };
}
