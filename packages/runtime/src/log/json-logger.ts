/**
 * The runtime's own logger: one JSON object per line, written synchronously. It loads nothing
 * (pino's module graph cost a fresh operator ~20 ms of start-up before its first line) and writes
 * what pino's JSON would: `level` as its label, `time` in ISO 8601, the bindings, the fields, then
 * `msg`; errors as `{ type, message, stack, ... }`.
 */
import { isoTimestamp } from '../iso-time.js';
import { lineWriter } from './fd-write.js';
import { encodeFields, stringifyField } from './log-line.js';
import type { LogDestination, Logger, LogLevel } from './logger.js';

/** Each level's severity; an entry is written when its level's is at least the logger's. */
const LEVEL_SEVERITY: Readonly<Record<LogLevel, number>> = {
  trace: 10,
  debug: 20,
  info: 30,
  warn: 40,
  error: 50,
  fatal: 60,
  silent: Number.POSITIVE_INFINITY,
};

/** A {@link Logger} writing JSON lines; see {@link createLogger} for the format. */
export class JsonLogger implements Logger {
  private readonly writeLine: (line: string) => void;

  /**
   * @param destination where lines go: a file descriptor (written synchronously) or a destination
   * @param level the least severe level written
   * @param bindings the encoded `,"key":value` pairs every line carries (the name, a child's bindings)
   */
  constructor(
    destination: number | LogDestination | ((line: string) => void),
    private readonly level: LogLevel,
    private readonly bindings = '',
  ) {
    this.writeLine = typeof destination === 'function' ? destination : lineWriter(destination);
  }

  trace(fieldsOrMessage: object | string, message?: string): void {
    this.write('trace', fieldsOrMessage, message);
  }

  debug(fieldsOrMessage: object | string, message?: string): void {
    this.write('debug', fieldsOrMessage, message);
  }

  info(fieldsOrMessage: object | string, message?: string): void {
    this.write('info', fieldsOrMessage, message);
  }

  warn(fieldsOrMessage: object | string, message?: string): void {
    this.write('warn', fieldsOrMessage, message);
  }

  error(fieldsOrMessage: object | string, message?: string): void {
    this.write('error', fieldsOrMessage, message);
  }

  fatal(fieldsOrMessage: object | string, message?: string): void {
    this.write('fatal', fieldsOrMessage, message);
  }

  child(bindings: Record<string, unknown>): Logger {
    return new JsonLogger(this.writeLine, this.level, this.bindings + encodeFields(bindings));
  }

  isLevelEnabled(level: string): boolean {
    if (level === 'silent' || !Object.hasOwn(LEVEL_SEVERITY, level)) return false;
    return this.writes(level as LogLevel);
  }

  /** Whether entries at `level` (one of the six) are written. */
  private writes(level: LogLevel): boolean {
    return LEVEL_SEVERITY[level] >= LEVEL_SEVERITY[this.level];
  }

  private write(level: LogLevel, fieldsOrMessage: object | string | undefined, message?: string): void {
    if (!this.writes(level)) return;
    let line = `{"level":"${level}","time":"${isoTimestamp(Date.now())}"${this.bindings}`;
    let msg = message;
    if (typeof fieldsOrMessage === 'string') {
      msg = fieldsOrMessage;
    } else if (fieldsOrMessage instanceof Error) {
      // pino's reading of `log.error(err)`: the error under `err`, its message as the message.
      line += `,"err":${stringifyField(fieldsOrMessage)}`;
      msg ??= fieldsOrMessage.message;
    } else if (fieldsOrMessage !== null && typeof fieldsOrMessage === 'object') {
      line += encodeFields(fieldsOrMessage);
    }
    if (msg !== undefined) line += `,"msg":${JSON.stringify(String(msg))}`;
    line += '}\n';
    try {
      this.writeLine(line);
    } catch {
      // A closed standard output (EPIPE) leaves nowhere to say so; the caller goes on.
    }
  }
}
