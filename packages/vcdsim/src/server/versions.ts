/** API version negotiation: the version travels as the `version` parameter of `Accept`. */

/** The API versions the simulator serves (VCD 10.3 to 10.6). */
export const SUPPORTED_VERSIONS = [
  '36.0',
  '36.1',
  '36.2',
  '36.3',
  '37.0',
  '37.1',
  '37.2',
  '37.3',
  '38.0',
  '38.1',
];

/** The newest version served. */
export const CURRENT_VERSION = SUPPORTED_VERSIONS[SUPPORTED_VERSIONS.length - 1]!;

/** The version asked for in an `Accept` header (the first media range with a version), if any. */
export function requestedVersion(accept: string | undefined): string | undefined {
  for (const range of (accept ?? '').split(',')) {
    const m = /;\s*version\s*=\s*"?([0-9.]+)"?/i.exec(range);
    if (m) return m[1];
  }
  return undefined;
}

/** True when a client asking for this version can be served. */
export const isSupported = (v: string | undefined): v is string => !!v && SUPPORTED_VERSIONS.includes(v);
