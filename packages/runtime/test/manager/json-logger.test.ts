import fc from 'fast-check';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { ApiError } from '../../src/api/errors.js';
import { JsonLogger } from '../../src/log/json-logger.js';
import { createLogger, type Logger } from '../../src/log/logger.js';

function capture(level: 'trace' | 'info' | 'warn' = 'info') {
  const lines: string[] = [];
  const logger = new JsonLogger({ write: (line: string) => lines.push(line) }, level);
  return { logger, entries: () => lines.map((line) => JSON.parse(line) as Record<string, unknown>), lines };
}

describe('JsonLogger', () => {
  it('writes level, time, the bindings of each child in order, the fields, then msg', () => {
    const { logger, lines } = capture();
    logger
      .child({ controller: 'widgets' })
      .child({ name: 'w1', skipped: undefined })
      .info({ step: 2 }, 'done');
    expect(lines).toHaveLength(1);
    const line = lines[0] as string;
    expect(line.endsWith('}\n')).toBe(true);
    expect(Object.keys(JSON.parse(line))).toEqual(['level', 'time', 'controller', 'name', 'step', 'msg']);
  });

  it('reads an Error in place of the fields as pino does: under err, its message the message', () => {
    const { logger, entries } = capture();
    logger.error(new TypeError('bad input'));
    logger.error(new TypeError('bad input'), 'while parsing');
    const [alone, withMessage] = entries();
    expect(alone).toMatchObject({
      level: 'error',
      msg: 'bad input',
      err: { type: 'TypeError', message: 'bad input' },
    });
    expect(withMessage).toMatchObject({ msg: 'while parsing', err: { type: 'TypeError' } });
  });

  it("keeps an API error's own properties and an error's cause chain", () => {
    const { logger, entries } = capture();
    const apiError = new ApiError({ code: 409, reason: 'Conflict', message: 'the object has been modified' });
    const wrapped = new Error('update failed', { cause: apiError });
    logger.warn({ err: wrapped }, 'retrying');
    const [entry] = entries();
    const err = entry?.err as Record<string, unknown>;
    expect(err).toMatchObject({ type: 'Error', message: 'update failed' });
    expect(err.cause).toMatchObject({ type: 'ApiError', code: 409 });
    expect(String(err.stack)).toContain('update failed');
  });

  it('never throws at its caller: cycles, BigInts, throwing getters and toJSON are written safely', () => {
    const { logger, entries } = capture();
    const cyclic: Record<string, unknown> = { name: 'a' };
    cyclic.self = cyclic;
    const shared = { id: 1 };
    const throwing = {
      get value(): never {
        throw new Error('getter failed');
      },
    };
    logger.info(
      {
        cyclic,
        twice: [shared, shared],
        big: 10n ** 20n,
        throwing,
        odd: {
          toJSON: () => {
            throw new Error('no JSON');
          },
        },
      },
      'odd fields',
    );
    const [entry] = entries();
    expect(entry).toMatchObject({
      cyclic: { name: 'a', self: '[Circular]' },
      big: '100000000000000000000',
      throwing: '[Unserializable: getter failed]',
      odd: '[Unserializable: no JSON]',
      msg: 'odd fields',
    });
    // An object seen twice side by side is not a cycle: only the field that failed was rewritten.
    expect(entry?.twice).toEqual([{ id: 1 }, { id: 1 }]);
  });

  it('writes exactly the entries at or above its level, and says which those are', () => {
    const { logger, entries } = capture('warn');
    for (const level of ['trace', 'debug', 'info', 'warn', 'error', 'fatal'] as const) logger[level](level);
    expect(entries().map((e) => e.level)).toEqual(['warn', 'error', 'fatal']);
    expect(
      ['trace', 'info', 'warn', 'fatal', 'silent', 'loud', 'toString'].map((l) => logger.isLevelEnabled(l)),
    ).toEqual([false, false, true, true, false, false, false]);
    const silent = createLogger({ level: 'silent', destination: { write: () => expect.unreachable() } });
    silent.fatal('nothing');
    expect(silent.isLevelEnabled('fatal')).toBe(false);
  });

  it('a destination that throws (a closed pipe) does not reach the caller', () => {
    const logger = createLogger({
      destination: {
        write: () => {
          throw Object.assign(new Error('write EPIPE'), { code: 'EPIPE' });
        },
      },
    });
    expect(() => logger.info('into the void')).not.toThrow();
  });

  it('property: any JSON fields come back as they went in, after the bindings, with the message', () => {
    const key = fc.string().filter((k) => !['level', 'time', 'msg', '__proto__'].includes(k));
    const fields = fc.dictionary(key, fc.jsonValue(), { maxKeys: 6 });
    fc.assert(
      fc.property(fields, fc.string(), (values, message) => {
        const { logger, entries } = capture();
        logger.child({ controller: 'c' }).info(values, message);
        const [entry] = entries();
        const { level, time, controller, msg, ...rest } = entry as Record<string, unknown>;
        expect(level).toBe('info');
        expect(typeof time).toBe('string');
        expect(controller).toBe('c');
        expect(msg).toBe(message);
        expect(rest).toEqual(JSON.parse(JSON.stringify(values)));
      }),
    );
  });

  it('a pino logger is a Logger: the runtime takes one where it takes its own', () => {
    const lines: string[] = [];
    const external: Logger = pino({ level: 'info' }, { write: (line: string) => lines.push(line) });
    external.child({ controller: 'widgets' }).warn({ attempt: 2 }, 'slow');
    expect(JSON.parse(lines[0] as string)).toMatchObject({ controller: 'widgets', attempt: 2, msg: 'slow' });
  });
});
