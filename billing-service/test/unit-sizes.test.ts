import { describe, expect, it } from 'vitest';
import { EXEMPT, exemption, longFunctions, MAX_FILE_LINES, MAX_FUNCTION_LINES, measure } from '../../scripts/unit-sizes.js';

/** Issue 36: units a newcomer can read. scripts/unit-sizes.ts measures; `npx tsx scripts/unit-sizes.ts` lists the offenders. */
describe('the size of the code', () => {
  it('finds a long function and names it (the check can fail)', () => {
    const body = Array.from({ length: MAX_FUNCTION_LINES }, (_, i) => `  const v${i} = ${i};`).join('\n');
    const source = `export function long() {\n${body}\n}\nexport const short = () => 1;\nclass C {\n  method() {\n${body}\n  }\n}\n`;
    expect(longFunctions('x.ts', source).map((unit) => [unit.name, unit.lines])).toEqual([
      ['long', MAX_FUNCTION_LINES + 2],
      ['method', MAX_FUNCTION_LINES + 2],
    ]);
  });

  it('exempts only tests, migrations, the generated table types and translations, each for its reason', () => {
    expect(exemption('billing-service/test/payments/x.test.ts')).toBe('tests');
    expect(exemption('billing-service/src/db/migrations/0001-initial.ts')).toMatch(/migrations/);
    expect(exemption('billing-service/src/db/schema.ts')).toMatch(/generated/);
    expect(exemption('billing-service/src/payments/service.ts')).toBeUndefined();
    expect(exemption('billing-service/bench/summary.ts')).toBeUndefined();
    for (const entry of EXEMPT) expect(entry.reason.length).toBeGreaterThan(0);
  });

  it(`has no source file over ${MAX_FILE_LINES} lines and no function over ${MAX_FUNCTION_LINES}`, () => {
    const { longFiles, longFunctions: long } = measure();
    expect(longFiles.map((unit) => `${unit.file} (${unit.lines} lines)`)).toEqual([]);
    expect(long.map((unit) => `${unit.file} ${unit.name} (${unit.lines} lines)`)).toEqual([]);
  });
});
