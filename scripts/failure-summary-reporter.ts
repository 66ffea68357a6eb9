import { appendFileSync } from 'node:fs';
import path from 'node:path';
import type { Reporter, TestModule } from 'vitest/node';

/**
 * Appends every failed test (and every failed file or unhandled error) of a vitest run to the file named by
 * RENEW_TEST_FAILURES, so `npm test` can repeat them all at its very end: CI shows only the tail of a long log,
 * and npm's --workspaces runs the next package after one fails.
 */
export default class FailureSummaryReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>, unhandledErrors: ReadonlyArray<{ message?: string }>): void {
    const file = process.env.RENEW_TEST_FAILURES;
    if (!file) return;
    const pass = process.env.RENEW_TEST_POSTGRES_URL ? 'PostgreSQL' : 'PGlite';
    const lines: string[] = [];
    for (const testModule of testModules) {
      const where = `${path.basename(process.cwd())}/${path.relative(process.cwd(), testModule.moduleId)}`;
      for (const error of testModule.errors()) lines.push(`[${pass}] ${where}: file failed: ${firstLine(error.message)}`);
      for (const testCase of testModule.children.allTests('failed')) {
        const message = testCase.result().errors?.[0]?.message;
        lines.push(`[${pass}] ${where} > ${testCase.fullName}: ${firstLine(message)}`);
      }
    }
    for (const error of unhandledErrors)
      lines.push(`[${pass}] ${path.basename(process.cwd())}: unhandled error: ${firstLine(error.message)}`);
    if (lines.length > 0) appendFileSync(file, `${lines.join('\n')}\n`);
  }
}

function firstLine(message: string | undefined): string {
  return ((message ?? '(no message)').split('\n')[0] ?? '').slice(0, 300);
}
