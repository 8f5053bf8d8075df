import { spawnSync } from 'node:child_process';
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger, loggerFor } from '../../src/log/logger.js';
import { eventually } from '../../src/testing/index.js';

function sink() {
  const chunks: string[] = [];
  const stream = new Writable({
    write(chunk, _enc, done) {
      chunks.push(String(chunk));
      done();
    },
  });
  return { stream, lines: () => chunks.join('').split('\n').filter(Boolean) };
}

describe('createLogger', () => {
  it('writes JSON lines with a level label, ISO time and message', () => {
    const out = sink();
    const log = createLogger({ destination: out.stream, name: 'widget-operator' });
    log.info({ nodes: 3 }, 'starting');
    log.debug('hidden at info');
    const lines = out.lines();
    expect(lines).toHaveLength(1);
    const entry = JSON.parse(lines[0] as string);
    expect(entry).toMatchObject({ level: 'info', msg: 'starting', nodes: 3, name: 'widget-operator' });
    expect(entry.time).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(entry).not.toHaveProperty('pid');
  });

  it('honours the level and serializes errors', () => {
    const out = sink();
    const log = createLogger({ destination: out.stream, level: 'warn' });
    log.info('dropped');
    log.error({ err: new Error('boom') }, 'failed');
    const entries = out.lines().map((l) => JSON.parse(l));
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({
      level: 'error',
      msg: 'failed',
      err: { message: 'boom', type: 'Error' },
    });
    expect(entries[0].err.stack).toContain('boom');
  });

  it('writes readable lines in pretty format, those logged while pino-pretty loads in order', async () => {
    const out = sink();
    const log = createLogger({ destination: out.stream, format: 'pretty', colorize: false });
    log.warn({ controller: 'widgets' }, 'slow reconcile');
    log.info('second');
    await eventually(() => expect(out.lines().length).toBeGreaterThanOrEqual(3));
    log.info('third');
    const lines = out.lines();
    const text = lines.join('\n');
    expect(text).toContain('WARN');
    expect(text).toContain('controller: "widgets"');
    const order = ['slow reconcile', 'second', 'third'].map((m) => lines.findIndex((l) => l.includes(m)));
    expect(order.every((i) => i >= 0)).toBe(true);
    expect([...order].sort((a, b) => a - b)).toEqual(order);
    expect(() => JSON.parse(lines[0] as string)).toThrow();
  });

  it('a pretty line logged just before the process exits is written, as JSON, not lost', async () => {
    // The built module (`npm test` builds first): a plain Node child, as an operator runs.
    const logger = new URL('../../dist/log/logger.js', import.meta.url).pathname;
    const script = `import { createLogger } from ${JSON.stringify(logger)};
      createLogger({ format: 'pretty' }).info({ step: 1 }, 'last words');
      process.exit(0);`;
    const child = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
      encoding: 'utf8',
    });
    expect(child.status, child.stderr).toBe(0);
    const line = JSON.parse(child.stdout.trim());
    expect(line).toMatchObject({ msg: 'last words', step: 1 });
  });

  it('writes every line before process.exit, through a pipe that fills and a descriptor left non-blocking', () => {
    // 4 MB through a 64 kB pipe: the writes meet a full pipe, and touching process.stdout first
    // leaves the descriptor non-blocking (EAGAIN) as a program that also prints would.
    const logger = new URL('../../dist/log/logger.js', import.meta.url).pathname;
    const script = `import { createLogger } from ${JSON.stringify(logger)};
      void process.stdout;
      const log = createLogger();
      for (let i = 0; i < 4000; i++) log.info({ i, pad: 'x'.repeat(1000) }, 'line');
      process.exit(0);`;
    const child = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
      encoding: 'utf8',
      maxBuffer: 64 * 1024 * 1024,
    });
    expect(child.status, child.stderr).toBe(0);
    const lines = child.stdout.trim().split('\n');
    expect(lines).toHaveLength(4000);
    expect(JSON.parse(lines[3999] as string)).toMatchObject({ i: 3999, msg: 'line' });
  });

  it('rejects unknown levels and formats', () => {
    expect(() => createLogger({ level: 'loud' as never })).toThrow(/invalid log level "loud"/);
    expect(() => createLogger({ format: 'xml' as never })).toThrow(/invalid log format "xml"/);
  });
});

describe('loggerFor', () => {
  it('binds the controller and object to every line, leaving out what is not given', () => {
    const out = sink();
    const root = createLogger({ destination: out.stream });
    const log = loggerFor(root, { controller: 'widgets', namespace: 'ns', name: 'w1', reconcileId: 'r-1' });
    log.info('reconciling');
    loggerFor(root, { controller: 'nodes', name: 'node-1', namespace: undefined }).info('cluster-scoped');
    const [a, b] = out.lines().map((l) => JSON.parse(l));
    expect(a).toMatchObject({
      controller: 'widgets',
      namespace: 'ns',
      name: 'w1',
      reconcileId: 'r-1',
      msg: 'reconciling',
    });
    expect(b).toMatchObject({ controller: 'nodes', name: 'node-1' });
    expect(b).not.toHaveProperty('namespace');
    expect(b).not.toHaveProperty('reconcileId');
  });
});
