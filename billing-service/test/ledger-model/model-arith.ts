/**
 * The reference model's own arithmetic, written without the service's code: exact rationals
 * over bigint and UTC calendar days. Nothing here imports from src/ (nor decimal.js).
 */

function gcd(a: bigint, b: bigint): bigint {
  a = a < 0n ? -a : a;
  b = b < 0n ? -b : b;
  while (b !== 0n) [a, b] = [b, a % b];
  return a;
}

/** An exact rational n/d (d > 0, reduced). */
export class Rational {
  readonly n: bigint;
  readonly d: bigint;
  constructor(n: bigint, d: bigint = 1n) {
    if (d === 0n) throw new RangeError('division by zero');
    if (d < 0n) [n, d] = [-n, -d];
    const g = gcd(n, d) || 1n;
    this.n = n / g;
    this.d = d / g;
  }
  static of(n: bigint | number, d: bigint | number = 1n): Rational {
    return new Rational(BigInt(n), BigInt(d));
  }
  plus(o: Rational): Rational {
    return new Rational(this.n * o.d + o.n * this.d, this.d * o.d);
  }
  minus(o: Rational): Rational {
    return new Rational(this.n * o.d - o.n * this.d, this.d * o.d);
  }
  times(o: Rational): Rational {
    return new Rational(this.n * o.n, this.d * o.d);
  }
  div(o: Rational): Rational {
    return new Rational(this.n * o.d, this.d * o.n);
  }
  /** Rounded to an integer, half away from zero. */
  roundHalfAwayFromZero(): bigint {
    const negative = this.n < 0n;
    const n = negative ? -this.n : this.n;
    // floor(n/d + 1/2) = floor((2n + d) / 2d) for n >= 0
    const r = (2n * n + this.d) / (2n * this.d);
    return negative ? -r : r;
  }
}

/**
 * Money in the model is whole cents (bigint). A line worth `cents × num / den` is computed
 * exactly and rounded once, half away from zero, to the cent.
 */
export function roundShare(cents: bigint, num: number, den: number): bigint {
  return Rational.of(cents).times(Rational.of(num, den)).roundHalfAwayFromZero();
}

/** Minor units (cents, yen, fils) from a JSON amount of the API in a currency of `digits` decimals (USD 2, JPY 0, BHD 3). */
export function minorOf(amount: number | string, digits: number): bigint {
  const text = typeof amount === 'number' ? amount.toFixed(6) : amount;
  const match = /^(-?)(\d+)(?:\.(\d+))?$/.exec(text);
  if (!match) throw new Error(`not an amount: ${amount}`);
  const frac = (match[3] ?? '').padEnd(6, '0');
  if (!/^0*$/.test(frac.slice(digits))) throw new Error(`more than ${digits} decimals: ${amount}`);
  const v = BigInt(match[2]!) * 10n ** BigInt(digits) + BigInt(frac.slice(0, digits) || '0');
  return match[1] ? -v : v;
}

export function formatMinor(c: bigint, digits: number): string {
  const negative = c < 0n;
  const a = negative ? -c : c;
  const unit = 10n ** BigInt(digits);
  const whole = `${negative ? '-' : ''}${a / unit}`;
  return digits === 0 ? whole : `${whole}.${String(a % unit).padStart(digits, '0')}`;
}

/** Cents from a JSON amount of the API (at most 2 decimals in USD). */
export function centsOf(amount: number | string): bigint {
  return minorOf(amount, 2);
}

export function formatCents(c: bigint): string {
  return formatMinor(c, 2);
}

// ---- calendar: a day is an integer, days since 1970-01-01 (UTC) ----

const DAY_MS = 86_400_000;

export function dayOf(year: number, month: number, day: number): number {
  return Date.UTC(year, month - 1, day) / DAY_MS;
}

export function partsOf(dayNumber: number): { year: number; month: number; day: number } {
  const d = new Date(dayNumber * DAY_MS);
  return { year: d.getUTCFullYear(), month: d.getUTCMonth() + 1, day: d.getUTCDate() };
}

export function isoDay(dayNumber: number): string {
  return new Date(dayNumber * DAY_MS).toISOString().slice(0, 10);
}

export function dayFromIso(iso: string): number {
  const [y, m, d] = iso.slice(0, 10).split('-').map(Number) as [number, number, number];
  return dayOf(y, m, d);
}

function daysInMonth(year: number, month: number): number {
  return new Date(Date.UTC(year, month, 0)).getUTCDate();
}

/**
 * The period start `months` months after `start` (a start of the same period grid): that month, on
 * the anchor day, or the last day of that month when it is shorter. Periods of N months (or N years,
 * 12·N months) run from the anniversary in steps of N months (anchor 31, monthly: Jan 31 → Feb 28 → Mar 31).
 */
export function addMonthsAnchored(start: number, months: number, anchorDay: number): number {
  const { year, month } = partsOf(start);
  const index = year * 12 + (month - 1) + months;
  const ny = Math.floor(index / 12);
  const nm = (index % 12) + 1;
  return dayOf(ny, nm, Math.min(anchorDay, daysInMonth(ny, nm)));
}

/** The moment the model says things happen on a day: noon UTC. */
export function noonOf(dayNumber: number): Date {
  return new Date(dayNumber * DAY_MS + 12 * 3_600_000);
}
