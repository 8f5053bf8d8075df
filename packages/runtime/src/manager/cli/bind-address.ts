/**
 * Bind addresses as controller-runtime's flags write them: `:8080` (every interface),
 * `127.0.0.1:8081`, `[::1]:8080`, `:0` (an ephemeral port) and `0` (disabled).
 */

/** Where a server listens. `host` undefined means every interface. */
export interface BindAddress {
  host: string | undefined;
  port: number;
}

/**
 * Parses a bind address; returns `undefined` for `0` or the empty string, which disable the server.
 * @throws Error naming the address when it is malformed.
 */
export function parseBindAddress(address: string): BindAddress | undefined {
  const text = address.trim();
  if (text === '' || text === '0') return undefined;
  const m = /^(?:\[([^\]]+)\]|([^:[\]]*)):(\d{1,5})$/.exec(text);
  if (!m) {
    throw new Error(
      `invalid bind address "${address}": expected [host]:port, e.g. ":8080" or "127.0.0.1:8081" ("0" disables)`,
    );
  }
  const port = Number(m[3]);
  if (port > 65535) throw new Error(`invalid bind address "${address}": port ${port} is out of range`);
  const host = m[1] ?? m[2];
  return { host: host === '' ? undefined : host, port };
}

/** The canonical text of a bind address, so that equal addresses compare equal. */
export function formatBindAddress(address: BindAddress): string {
  const host =
    address.host === undefined ? '' : address.host.includes(':') ? `[${address.host}]` : address.host;
  return `${host}:${address.port}`;
}
