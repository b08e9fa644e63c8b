// Colours only when the terminal allows decoration (see cli/terminal.ts).
import { Chalk } from 'chalk';
import type { Terminal } from '../cli/terminal';

export interface Palette {
  ok(s: string): string;
  warn(s: string): string;
  bad(s: string): string;
  dim(s: string): string;
  bold(s: string): string;
}

const plain: Palette = { ok: (s) => s, warn: (s) => s, bad: (s) => s, dim: (s) => s, bold: (s) => s };

export function paletteFor(term: Terminal): Palette {
  if (!term.decorate) return plain;
  const c = new Chalk({ level: 1 });
  return { ok: c.green, warn: c.yellow, bad: c.red, dim: c.dim, bold: c.bold };
}
