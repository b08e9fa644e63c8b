// A JUnit report as CI reads it: Python's junitparser (Debian python3-junitparser, scripts/test-deps.sh).
import { execFileSync } from 'node:child_process';

/** The suite's counts (tests failures errors skipped), then each testcase by name with its result. */
export function junit(file: string): string {
  return execFileSync('/usr/bin/python3', ['-c', `
import sys
from junitparser import JUnitXml
x = JUnitXml.fromfile(sys.argv[1])
for s in x:
    print(s.tests, s.failures, s.errors, s.skipped)
    for c in sorted(s, key=lambda c: c.name):
        print(c.name, ','.join(type(r).__name__ for r in c.result) or 'passed')
`, file], { encoding: 'utf8' });
}
