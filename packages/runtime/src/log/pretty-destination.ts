/**
 * The destination of `pretty` logs: pino-pretty's stream, loaded the first time a logger asks for
 * it. A process logging JSON (the default, and every operator image) never loads pino-pretty and
 * its dozen modules (~14 ms of start-up, ~1.8 MB of memory). Lines logged while it loads wait, in
 * order; should the process exit first, they are written as the JSON lines they are, so none is
 * lost.
 */
import { lineWriter } from './fd-write.js';
import type { LogDestination } from './logger.js';

/** Options of {@link prettyDestination}. */
export interface PrettyDestinationOptions {
  colorize: boolean;
  /** A file descriptor or a stream. */
  destination: number | LogDestination;
}

/** Destinations still loading, flushed as JSON if the process exits first. */
const waiting = new Set<() => void>();
let exitHook = false;

/** Creates the destination; pino-pretty starts loading at once. */
export function prettyDestination(options: PrettyDestinationOptions): LogDestination {
  const raw = lineWriter(options.destination);
  /** Where lines go once pino-pretty has loaded (or failed to); until then they wait in `pending`. */
  let target: ((line: string) => void) | undefined;
  const pending: string[] = [];
  const flushRaw = () => {
    for (const line of pending.splice(0)) raw(line);
  };
  waiting.add(flushRaw);
  if (!exitHook) {
    exitHook = true;
    process.once('exit', () => {
      for (const flush of waiting) flush();
    });
  }
  void import('pino-pretty')
    .then(
      ({ default: pretty }) => {
        const stream = pretty({
          colorize: options.colorize,
          sync: true,
          translateTime: 'SYS:HH:MM:ss.l',
          ignore: 'pid,hostname',
          destination: options.destination as number | NodeJS.WritableStream,
        });
        return (line: string) => {
          stream.write(line);
        };
      },
      (err: unknown) => {
        raw(
          `${JSON.stringify({ level: 'warn', msg: `pino-pretty did not load, logging JSON: ${String(err)}` })}\n`,
        );
        return raw;
      },
    )
    .then((write) => {
      waiting.delete(flushRaw);
      for (const line of pending.splice(0)) write(line);
      target = write;
    });
  return {
    write(line: string) {
      if (target) target(line);
      else pending.push(line);
    },
  };
}
