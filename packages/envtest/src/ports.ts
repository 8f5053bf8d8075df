/**
 * Ports for the components envtest starts as child processes. A child binds its port some time
 * after we chose it (a Cluster API manager: tens of seconds later, once its CRDs are in), so a port
 * that was merely free when chosen can be gone by then. Two things took ports in that gap:
 *  1. outgoing connections: the kernel gives them local ports from its ephemeral range, the same
 *     range `listen(0)` picks from. We choose below that range, where it never assigns a port.
 *  2. another test process choosing the same port: each choice is reserved by a file named after
 *     the port, created exclusively and holding our pid; a reservation whose pid is gone is taken
 *     over. Reservations last as long as the process that made them.
 */
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { tryFileLock } from './file-lock.js';

/** Where reservations live: one file per port, shared by every process of this user. */
const reservations = join(tmpdir(), `capstan-ports-${process.getuid?.() ?? 'user'}`);
/** The lowest port we choose (above the well-known and registered services tests may run). */
const LOWEST = 10_000;
const held = new Set<number>();

/** The first port of the kernel's ephemeral range (Linux), or 32768 where it cannot be read. */
function ephemeralLow(): number {
  try {
    const [low] = readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/);
    const n = Number(low);
    return Number.isInteger(n) && n > LOWEST ? n : 32_768;
  } catch {
    return 32_768;
  }
}

/** Reserves `port` for this process; false if a live process (this one included) holds it. */
export function reservePort(port: number): boolean {
  return tryFileLock(join(reservations, String(port)));
}

/** Whether a listener can bind `port` on every interface right now. */
function bindable(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.unref();
    server.once('error', () => resolve(false));
    server.listen(port, () => server.close(() => resolve(true)));
  });
}

/**
 * A TCP port free on every interface, outside the kernel's ephemeral range and reserved for this
 * process, so a child process started later can still bind it.
 */
export async function freePort(): Promise<number> {
  const high = ephemeralLow() - 1;
  for (let attempt = 0; attempt < 200; attempt++) {
    const port = LOWEST + Math.floor(Math.random() * (high - LOWEST + 1));
    if (held.has(port) || !(await bindable(port))) continue;
    if (!reservePort(port)) continue;
    held.add(port);
    return port;
  }
  throw new Error(
    `no free port between ${LOWEST} and ${high} after 200 tries (reservations in ${reservations})`,
  );
}

/** `n` distinct free ports. */
export async function freePorts(n: number): Promise<number[]> {
  const ports: number[] = [];
  while (ports.length < n) ports.push(await freePort());
  return ports;
}
