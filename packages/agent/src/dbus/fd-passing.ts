import { createRequire } from 'node:module';

/**
 * Whether dbus-next can pass unix file descriptors (the D-Bus `h` type) on this machine.
 *
 * Node's `net` sockets cannot carry SCM_RIGHTS ancillary data; dbus-next 0.10 only negotiates fd
 * passing when its optional native dependency `usocket` is installed and the address is
 * `unix:path=`. Without it an `h` value would travel as a bare number, which is meaningless in
 * the other process, so callers must not offer or request fds at all.
 */
export function unixFdPassingAvailable(): boolean {
  try {
    const fromDbusNext = createRequire(createRequire(import.meta.url).resolve('dbus-next'));
    fromDbusNext.resolve('usocket');
    return true;
  } catch {
    return false;
  }
}
