// Renders `why` answers; never talks to the API.
import type { Finding } from '../kruise/why/findings';

export interface WhyAnswer {
  object: string;
  namespace: string;
  findings: Finding[];
}

export function renderWhyText(answers: readonly WhyAnswer[]): string {
  const lines: string[] = [];
  for (const a of answers) {
    if (a.findings.length === 0) {
      lines.push(`${a.object}: nothing blocks it`);
      continue;
    }
    lines.push(`${a.object}:`);
    for (const f of a.findings) {
      lines.push(`  ${f.code}: ${f.cause}`);
      lines.push(`    objects: ${f.objects.join(', ')}`);
      lines.push(`    next:    ${f.next}`);
    }
  }
  return `${lines.join('\n')}\n`;
}
