import type { CpuShares } from './cpu.js';

/** Plain-text tables and number formatting for the benchmark output. */

export function table(headers: string[], rows: string[][], rightAligned: ReadonlySet<number> = new Set()): string {
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]) =>
    cells
      .map((cell, i) => (rightAligned.has(i) ? cell.padStart(widths[i] ?? 0) : cell.padEnd(widths[i] ?? 0)))
      .join('  ')
      .trimEnd();
  return [line(headers), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)].join('\n');
}

export const integer = (n: number) => Math.round(n).toLocaleString('en-US');
export const rate = (n: number, unit = 'req/s') => `${integer(n)} ${unit}`;
export const ms = (n: number) => (Number.isFinite(n) ? `${n < 10 ? n.toFixed(2) : n < 100 ? n.toFixed(1) : n.toFixed(0)} ms` : '—');
export const percent = (n: number) => `${(n * 100).toFixed(n < 0.1 ? 1 : 0)}%`;
export const seconds = (msValue: number) => `${(msValue / 1000).toFixed(1)} s`;

/** Autocannon records whole milliseconds. */
export const wholeMs = (n: number) => `${Math.round(n)} ms`;

/** CPU shares as percent of one core. */
export function cpuText(cpu: CpuShares | undefined, withPostgres: boolean): string {
  if (!cpu) return 'n/a';
  const core = (n: number) => `${Math.round(n * 100)}%`;
  return [
    `server ${core(cpu.server)}`,
    ...(withPostgres ? [`pg ${core(cpu.postgres)}`] : []),
    `autocannon ${core(cpu.loadGenerator)}`,
    `other ${core(cpu.other)}`,
  ].join(', ');
}

/** CPU time per request, in microseconds. */
export function perRequest(coreShare: number | undefined, requestsPerSecond: number): string {
  if (coreShare === undefined || requestsPerSecond <= 0) return '—';
  return `${integer((coreShare / requestsPerSecond) * 1e6)} µs`;
}

export function statusText(statusCodes: Record<string, number>): string {
  const entries = Object.entries(statusCodes).sort(([a], [b]) => a.localeCompare(b));
  return entries.length === 0 ? 'none' : entries.map(([code, n]) => `${code}×${integer(n)}`).join(' ');
}

/** One line of the summary table. */
export interface SummaryRow {
  target: string;
  measurement: string;
  result: string;
  baseline: string;
  ratio: string;
  goal: string;
  met: string;
}

export function summaryTable(rows: SummaryRow[]): string {
  return table(
    ['#', 'Measurement', 'Result', 'Baseline (same run)', 'Ratio', 'Target', 'Met'],
    rows.map((r) => [r.target, r.measurement, r.result, r.baseline, r.ratio, r.goal, r.met]),
    new Set([2, 4]),
  );
}

export const metText = (met: boolean | undefined) => (met === undefined ? '—' : met ? 'yes' : 'NO');
