/**
 * What a FleetLock request asks, decided from its parts before any cluster state is read: which
 * endpoint, whether the method and the `fleet-lock-protocol` header are right, and the client's
 * id and group from the JSON body. Pure, so every refusal the protocol names is checked by
 * property tests; the server (`fleetlock.ts`) only reads the body and answers.
 *
 * Answers are prepared once: the 200 answer (`{}`) and its headers are the same bytes for every
 * request, and every answer carries its Content-Length, so a kept-alive client reads it without
 * chunked framing.
 */

/** A FleetLock error body. */
export interface FleetLockError {
  kind: string;
  value: string;
}

/** A request refused with a FleetLock error: the HTTP status and the body. */
export class FleetLockRefusal extends Error {
  constructor(
    readonly status: number,
    readonly body: FleetLockError,
  ) {
    super(`${body.kind}: ${body.value}`);
  }
}

/** The endpoints FleetLock defines. */
export type FleetLockEndpoint = 'pre-reboot' | 'steady-state';

/** The FleetLock group every client uses unless configured otherwise. */
export const FLEETLOCK_DEFAULT_GROUP = 'default';

/** The largest body read; a longer one is refused without reading the rest. */
export const MAX_BODY_BYTES = 64 * 1024;

const GROUP = /^[a-zA-Z0-9.-]+$/;

/** The endpoint a request URL names (its query ignored); undefined for any other path. */
export function endpointOf(url: string | undefined): FleetLockEndpoint | undefined {
  if (url === undefined) return undefined;
  const q = url.indexOf('?');
  const path = q < 0 ? url : url.slice(0, q);
  return path === '/v1/pre-reboot' ? 'pre-reboot' : path === '/v1/steady-state' ? 'steady-state' : undefined;
}

/**
 * Whether a request may go on to its body, in the protocol's order of refusals (path, method,
 * header): its endpoint, or why it is refused.
 */
export function admit(
  url: string | undefined,
  method: string | undefined,
  protocolHeader: string | string[] | undefined,
): { endpoint: FleetLockEndpoint } | { refusal: FleetLockRefusal } {
  const endpoint = endpointOf(url);
  if (endpoint === undefined) {
    const path = (url ?? '').split('?')[0];
    return {
      refusal: new FleetLockRefusal(404, { kind: 'failed_not_found', value: `no such endpoint ${path}` }),
    };
  }
  if (method !== 'POST')
    return { refusal: new FleetLockRefusal(405, { kind: 'failed_method', value: 'use POST' }) };
  if (String(protocolHeader ?? '').toLowerCase() !== 'true') {
    return {
      refusal: new FleetLockRefusal(400, {
        kind: 'failed_missing_header',
        value: 'header fleet-lock-protocol: true is required',
      }),
    };
  }
  return { endpoint };
}

/** A body over {@link MAX_BODY_BYTES}. */
export const bodyTooLarge = (): FleetLockRefusal =>
  new FleetLockRefusal(413, { kind: 'failed_body_too_large', value: 'body over 64 KiB' });

/**
 * The client params of a body; a missing group is refused unless `lenient` takes it as the default
 * group.
 * @throws FleetLockRefusal (400) for a body that is not JSON, or an id or group that is not valid.
 */
export function parseParams(text: string, lenient: boolean): { id: string; group: string } {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new FleetLockRefusal(400, { kind: 'failed_bad_request', value: 'body is not JSON' });
  }
  const params = (body as { client_params?: unknown } | null)?.client_params as
    | { id?: unknown; group?: unknown }
    | undefined;
  const id = params?.id;
  if (params?.group === undefined && !lenient) {
    throw new FleetLockRefusal(400, {
      kind: 'failed_missing_group',
      value:
        'client_params.group is required (the coordinator was not started with --fleetlock-allow-missing-group)',
    });
  }
  const group = params?.group ?? FLEETLOCK_DEFAULT_GROUP;
  if (typeof id !== 'string' || id.trim() === '') {
    throw new FleetLockRefusal(400, {
      kind: 'failed_bad_request',
      value: 'client_params.id must be a non-empty string',
    });
  }
  if (typeof group !== 'string' || !GROUP.test(group)) {
    throw new FleetLockRefusal(400, {
      kind: 'failed_bad_request',
      value: 'client_params.group must match [a-zA-Z0-9.-]+',
    });
  }
  return { id, group };
}

/** An answer as written: status, headers (a flat name/value list) and the JSON body. */
export interface PreparedAnswer {
  status: number;
  headers: string[];
  body: string;
}

/** The answer for a status and JSON body, with its Content-Length (and `close`, when asked). */
export function prepareAnswer(status: number, body: unknown, close = false): PreparedAnswer {
  const text = JSON.stringify(body);
  const headers = ['content-type', 'application/json', 'content-length', String(Buffer.byteLength(text))];
  if (close) headers.push('connection', 'close');
  return { status, headers, body: text };
}

/** The 200 answer, the same for every request that succeeds. */
export const OK_ANSWER: PreparedAnswer = prepareAnswer(200, {});
