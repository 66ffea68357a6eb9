import { describe, expect, it } from 'vitest';
import { computeInvoices, dueDate, type Term } from '../../../src/invoices/engine/index.js';
import { engineInput } from './fixtures.js';

describe('due date', () => {
  it.each([
    ['2026-01-15', 'Net0', '2026-01-15'],
    ['2026-01-15', 'Net5', '2026-01-20'],
    ['2026-01-15', 'Net30', '2026-02-14'],
    ['2026-12-15', 'Net30', '2027-01-14'],
    ['2028-02-01', 'Net30', '2028-03-02'],
    ['2026-11-15', 'Net90', '2027-02-13'],
    ['2026-01-15', 'MFI1', '2026-02-01'],
    ['2026-01-31', 'MFI1', '2026-02-01'],
    ['2026-03-01', 'MFI1', '2026-04-01'],
    ['2026-12-15', 'MFI1', '2027-01-01'],
    ['2026-12-31', 'MFI1', '2027-01-01'],
  ] as const)('%s %s → %s', (effective, term, expected) => {
    expect(dueDate(effective, term)).toBe(expected);
  });

  it('is the invoice due date', () => {
    const [invoice] = computeInvoices(engineInput({ effectiveDate: '2026-12-15', term: 'MFI1' }));
    expect(invoice!.dueDate).toBe('2027-01-01');
  });

  it('rejects an unknown term or a bad date', () => {
    expect(() => dueDate('2026-01-15', 'Net31' as Term)).toThrow(/term/);
    expect(() => dueDate('2026-13-01', 'Net0')).toThrow(/effectiveDate/);
  });
});
