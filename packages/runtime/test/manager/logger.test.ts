import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger, loggerFor } from '../../src/manager/logger.js';

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

  it('writes readable lines in pretty format', () => {
    const out = sink();
    const log = createLogger({ destination: out.stream, format: 'pretty', colorize: false });
    log.warn({ controller: 'widgets' }, 'slow reconcile');
    const text = out.lines().join('\n');
    expect(text).toContain('WARN');
    expect(text).toContain('slow reconcile');
    expect(text).toContain('controller: "widgets"');
    expect(() => JSON.parse(out.lines()[0] as string)).toThrow();
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
