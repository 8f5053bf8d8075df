/**
 * `npm run bundle`'s esbuild step makes one self-contained file: built from the compiled dist, run
 * from a directory with no node_modules anywhere above it, it still has what the runtime loads on
 * first use (prom-client's classes and default metrics, commander for the flags: all required
 * through `createRequire`).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { root } from './packages.js';

const work = mkdtempSync(join(tmpdir(), 'capstan-bundle-test-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('a bundled entry point', () => {
  it('carries the modules the runtime requires lazily', async () => {
    // The entry sits in the runtime's dist so that its imports resolve as an operator's do.
    const entry = join(root, 'packages', 'runtime', 'dist', `bundle-test-${process.pid}.js`);
    writeFileSync(
      entry,
      [
        "import { MetricsRegistry, parseStandardOptions } from './manager/index.js';",
        'const text = await new MetricsRegistry().text();',
        "const has = (name) => text.split('\\n').some((line) => line.startsWith(name + ' '));",
        "const { standard } = parseStandardOptions(['--namespace=ns1', '--leader-elect-retry-period=3s'], { name: 'b' });",
        "console.log(JSON.stringify({ lag: has('nodejs_eventloop_lag_seconds'), cpu: has('process_cpu_user_seconds_total'), namespace: standard.namespace, retryPeriodMs: standard.retryPeriodMs }));",
      ].join('\n'),
    );
    try {
      const { bundleEntry } = (await import(join(root, 'scripts', 'bundle-operators.mjs'))) as {
        bundleEntry: (entry: string, outfile: string) => Promise<string>;
      };
      const bundle = await bundleEntry(entry, join(work, 'entry.bundle.mjs'));
      const out = execFileSync(process.execPath, [bundle], { cwd: work, encoding: 'utf8', timeout: 30_000 });
      expect(JSON.parse(out)).toEqual({ lag: true, cpu: true, namespace: 'ns1', retryPeriodMs: 3_000 });
    } finally {
      rmSync(entry, { force: true });
    }
  });
});
