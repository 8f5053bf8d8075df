/**
 * `npm run bundle`'s esbuild step makes one self-contained file: built from the compiled dist, run
 * from a directory with no node_modules anywhere above it, it still has what the runtime loads on
 * first use (prom-client's classes and default metrics, commander for the flags, the
 * coordinator's CEL: all required through `createRequire`). It is ASCII, or the bundle fails: V8
 * holds a module's source for as long as it runs, two bytes a character once one is not ASCII.
 * Its local names are minified (a smaller source); its source map gives a stack its names back.
 * It requires Node's built-ins rather than importing them (Node runs a built-in's getters to make
 * its ES module).
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { root } from './packages.js';

const work = mkdtempSync(join(tmpdir(), 'capstan-bundle-test-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** Bundles `lines` as an entry in `pkg`'s dist (its imports resolve as an operator's do). */
async function bundleLines(pkg: string, name: string, lines: string[]): Promise<string> {
  const entry = join(root, 'packages', pkg, 'dist', `${name}-${process.pid}.js`);
  writeFileSync(entry, lines.join('\n'));
  try {
    const { bundleEntry } = (await import(join(root, 'scripts', 'bundle-operators.mjs'))) as {
      bundleEntry: (entry: string, outfile: string) => Promise<string>;
    };
    return await bundleEntry(entry, join(work, `${name}.bundle.mjs`));
  } finally {
    rmSync(entry, { force: true });
  }
}

/** Runs a bundle that prints one JSON value; returns that value. */
function printed(bundle: string): unknown {
  return JSON.parse(
    execFileSync(process.execPath, [bundle], { cwd: work, encoding: 'utf8', timeout: 30_000 }),
  );
}

describe('a bundled entry point', () => {
  it("carries an operator's lazily required dependency (the coordinator's CEL)", async () => {
    const bundle = await bundleLines('coordinator', 'cel', [
      "import { compileCondition } from './gates/cel-condition.js';",
      "const program = compileCondition('object.spec.replicas > 2');",
      "const broken = compileCondition('object.spec.(');",
      'console.log(JSON.stringify({ three: program({ object: { spec: { replicas: 3 } } }), broken: broken instanceof Error }));',
    ]);
    expect(printed(bundle)).toEqual({ three: true, broken: true });
  });

  it('has minified names, and a source map that gives a stack its names and src/ lines back', async () => {
    const bundle = await bundleLines('runtime', 'stack', [
      "import { isoTimestamp } from './iso-time.js';",
      'isoTimestamp(Number.NaN);',
    ]);
    const stack = (flags: string[]) =>
      spawnSync(process.execPath, [...flags, bundle], { cwd: work, encoding: 'utf8', timeout: 30_000 })
        .stderr;
    expect(stack([])).toContain('RangeError');
    expect(stack([])).not.toContain('isoTimestamp');
    expect(stack(['--enable-source-maps'])).toMatch(
      /at isoTimestamp \(.*packages\/runtime\/src\/iso-time\.ts:\d+:\d+\)/,
    );
  });

  it("requires Node's built-ins: their ES modules' getters (Web Crypto, BlockList) are not run", async () => {
    const bundle = await bundleLines('runtime', 'builtins', [
      "import { createHash } from 'node:crypto';",
      "import * as net from 'node:net';",
      "import tls from 'node:tls';",
      'console.log(JSON.stringify({',
      "  hash: createHash('sha256').update('x').digest('hex').length,",
      "  ip: net.isIP('::1'),",
      '  tls: typeof tls.connect,',
      '  loaded: process.moduleLoadList.filter((m) => /webcrypto|blocklist/.test(m)),',
      '}));',
    ]);
    expect(printed(bundle)).toEqual({ hash: 64, ip: 6, tls: 'function', loaded: [] });
  });

  it("loads dbus-next's xml2js on its first use, not with the bus", async () => {
    const bundle = await bundleLines('agent', 'dbus-xml', [
      "import dbus from 'dbus-next';",
      "import ProxyObject from 'dbus-next/lib/client/proxy-object.js';",
      // sax (under xml2js) reads String.fromCodePoint once, when it is initialised.
      'let initialised = false;',
      'const fromCodePoint = String.fromCodePoint;',
      "Object.defineProperty(String, 'fromCodePoint', { configurable: true, get() { initialised = true; return fromCodePoint; } });",
      "const bus = dbus.sessionBus({ busAddress: 'unix:path=/nonexistent/capstan-bundle-test' });",
      "bus.on('error', () => {});",
      'const withBus = initialised;',
      "const built = bus._builder.buildObject({ node: { $: { name: '/a' } } });",
      'const onUse = initialised;',
      "const proxy = new ProxyObject(bus, 'org.example.Test', '/org/example/Test');",
      'proxy._parser.parseString(\'<node><interface name="org.example.I"/></node>\', (error, parsed) => {',
      '  console.log(JSON.stringify({ withBus, onUse, built, parsed: parsed.node.interface[0].$.name }));',
      '  bus.disconnect();',
      '});',
    ]);
    expect(printed(bundle)).toEqual({
      withBus: false,
      onUse: true,
      built: '<node name="/a"/>',
      parsed: 'org.example.I',
    });
  });

  it('is refused when a character is not ASCII, with where it is', async () => {
    await expect(
      bundleLines('runtime', 'non-ascii', ["console.log(/^[0-9µ]+$/.test('5µ'));"]),
    ).rejects.toThrow(/non-ASCII character at byte \d+, in: .*\[0-9µ\]/s);
  });

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
