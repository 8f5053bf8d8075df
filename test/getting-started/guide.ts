/**
 * docs/getting-started.md read as a script: its `sh step` blocks (commands to run), its
 * `file=<path>` blocks (files to write) and its `json tsconfig` block (the lines to change in
 * the tsconfig.json that `tsc --init` wrote).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { root } from '../packaging/packages.js';

export interface Guide {
  steps: string[][];
  files: Map<string, string>;
  tsconfigLines: string[];
}

export function readGuide(): Guide {
  const text = readFileSync(join(root, 'docs/getting-started.md'), 'utf8');
  const guide: Guide = { steps: [], files: new Map(), tsconfigLines: [] };
  for (const [, info = '', body = ''] of text.matchAll(/^```([^\n]*)\n([\s\S]*?)^```$/gm)) {
    const file = /\bfile=(\S+)/.exec(info)?.[1];
    if (file) guide.files.set(file, body);
    else if (info === 'sh step') guide.steps.push(body.split('\n').filter((l) => l.trim() !== ''));
    else if (info === 'json tsconfig') guide.tsconfigLines = body.split('\n').filter((l) => l.trim() !== '');
  }
  return guide;
}

/**
 * The tsconfig.json `tsc --init` wrote, with each of the guide's lines in place of the line (or
 * commented-out line) that sets the same option; every other default stays.
 */
export function applyTsconfigLines(initial: string, lines: readonly string[]): string {
  let out = initial;
  for (const line of lines) {
    const option = /^"(\w+)"/.exec(line.trim())?.[1];
    if (!option) throw new Error(`not a tsconfig option line: ${line}`);
    const existing = new RegExp(`^\\s*(//\\s*)?"${option}":.*$`, 'm');
    if (!existing.test(out)) throw new Error(`tsc --init wrote no "${option}" line to change`);
    out = out.replace(existing, `    ${line.trim()}`);
  }
  return out;
}
