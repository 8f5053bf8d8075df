/**
 * Writes to a file descriptor synchronously and completely, as a log line must be written: before
 * the call returns, so a line logged just before the process exits is not lost. A descriptor left
 * non-blocking (standard output shared with a stream Node opened on it) may refuse with EAGAIN
 * while its pipe is full; the write waits a millisecond and goes on.
 */
import { writeSync } from 'node:fs';
import type { LogDestination } from './logger.js';

const pause = new Int32Array(new SharedArrayBuffer(4));

/** Writes all of `text` to `fd`. */
function writeFully(fd: number, text: string): void {
  const bytes = Buffer.from(text);
  let offset = 0;
  while (offset < bytes.length) {
    try {
      offset += writeSync(fd, bytes, offset);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EAGAIN') throw error;
      Atomics.wait(pause, 0, 0, 1);
    }
  }
}

/** Writes each line to `destination`: fully and at once to a descriptor, else by its `write`. */
export function lineWriter(destination: number | LogDestination): (line: string) => void {
  if (typeof destination === 'number') return (line) => writeFully(destination, line);
  return (line) => {
    destination.write(line);
  };
}
