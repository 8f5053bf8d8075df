/**
 * Structured logs: one JSON object per line by default (what log pipelines ingest), or a readable
 * coloured line per entry for a terminal. Controllers log through child loggers that carry the
 * controller and the object being reconciled.
 */
import { JsonLogger } from './json-logger.js';
import { prettyDestination } from './pretty-destination.js';

/**
 * One log call: fields and a message, or a message alone. An `Error` in place of the fields is
 * logged under `err`, its message the message when none is given.
 */
export interface LogFn {
  (fields: object, message?: string): void;
  (message: string): void;
}

/**
 * The logger used throughout the runtime. It is the shape of pino's calls, so a pino logger (or
 * any logger with these methods) can be given wherever the runtime takes one.
 */
export interface Logger {
  trace: LogFn;
  debug: LogFn;
  info: LogFn;
  warn: LogFn;
  error: LogFn;
  fatal: LogFn;
  /** A logger whose lines also carry `bindings`. */
  child(bindings: Record<string, unknown>): Logger;
  /** Whether an entry at `level` would be written: to skip building costly fields. */
  isLevelEnabled(level: string): boolean;
}

/** Where lines go: anything with `write(line)`, such as a writable stream. */
export interface LogDestination {
  write(line: string): unknown;
}

/** Levels, most verbose first; `silent` logs nothing. */
export const LOG_LEVELS = ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'] as const;
/** A log level. */
export type LogLevel = (typeof LOG_LEVELS)[number];

/** Output formats: JSON lines, or pino-pretty's readable lines. */
export const LOG_FORMATS = ['json', 'pretty'] as const;
/** An output format. */
export type LogFormat = (typeof LOG_FORMATS)[number];

/** Options of {@link createLogger}. */
export interface LoggerOptions {
  /** Default `info`. */
  level?: LogLevel;
  /**
   * Default `json`. `pretty` loads pino-pretty on first use: lines logged while it loads are
   * written once it has (or, if the process exits first, as JSON).
   */
  format?: LogFormat;
  /** The logger's name (`name` field), e.g. the operator's. */
  name?: string;
  /** Where lines go; default standard output, written synchronously. */
  destination?: LogDestination;
  /** Colour in `pretty` format; default: when standard output is a terminal. */
  colorize?: boolean;
}

/** What a reconcile's log lines are about; undefined fields are left out. */
export interface LogContext {
  controller?: string;
  namespace?: string;
  name?: string;
  reconcileId?: string;
}

/**
 * Creates the root logger. JSON lines carry `level` as a label (`"info"`), `time` as an ISO 8601
 * string, `msg`, and errors under `err` with their stack.
 *
 * @example
 * const log = createLogger({ level: opts.logLevel, format: opts.logFormat, name: 'coordinator' });
 * log.info({ nodes: 3 }, 'starting');
 */
export function createLogger(options: LoggerOptions = {}): Logger {
  const level = options.level ?? 'info';
  if (!(LOG_LEVELS as readonly string[]).includes(level)) {
    throw new Error(`invalid log level "${level}": use one of ${LOG_LEVELS.join(', ')}`);
  }
  const format = options.format ?? 'json';
  if (!(LOG_FORMATS as readonly string[]).includes(format)) {
    throw new Error(`invalid log format "${String(format)}": use one of ${LOG_FORMATS.join(', ')}`);
  }
  const name = options.name === undefined ? '' : `,"name":${JSON.stringify(options.name)}`;
  if (format === 'pretty') {
    const colorize = options.colorize ?? Boolean(process.stdout.isTTY);
    return new JsonLogger(
      prettyDestination({ colorize, destination: options.destination ?? 1 }),
      level,
      name,
    );
  }
  return new JsonLogger(options.destination ?? 1, level, name);
}

/**
 * A child logger whose lines carry `controller`, `namespace`, `name` and `reconcileId` (those
 * given).
 *
 * @example
 * const log = loggerFor(root, { controller: 'widgets', namespace: 'ns', name: 'w1', reconcileId });
 * log.info('reconciling');
 */
export function loggerFor(base: Logger, context: LogContext): Logger {
  const bindings: Record<string, string> = {};
  for (const [key, value] of Object.entries(context)) {
    if (value !== undefined) bindings[key] = value;
  }
  return base.child(bindings);
}
