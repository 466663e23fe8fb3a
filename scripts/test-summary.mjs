#!/usr/bin/env node
// Prints the closing line of a test run ("Tests: N passed, N failed, N skipped") from the vitest
// JSON report, so any CI reader sees how many tests ran.
import { existsSync, readFileSync } from 'node:fs';

const file = process.argv[2] ?? 'out/vitest-report.json';
if (!existsSync(file)) {
  console.log('Tests: 0 passed, 1 failed (no test report was written)');
  process.exit(1);
}
const r = JSON.parse(readFileSync(file, 'utf8'));
const skipped = (r.numPendingTests ?? 0) + (r.numTodoTests ?? 0);
console.log(`Tests: ${r.numPassedTests} passed, ${r.numFailedTests} failed, ${skipped} skipped`);
process.exit(r.numFailedTests > 0 || r.numTotalTests === 0 ? 1 : 0);
