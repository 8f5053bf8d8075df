/**
 * VCD's errors as one type: the HTTP status plus VCD's `minorErrorCode` and message, read from an
 * XML `<Error>` or a CloudAPI JSON body. The message never carries credentials (we never send
 * them in a path or echo a request body).
 */
import { XMLParser } from 'fast-xml-parser';

/** A VCD answer that was not a success, or a task that ended in error. */
export class VcdError extends Error {
  override readonly name: string = 'VcdError';
  constructor(
    /** HTTP status (0 for a connection failure, the task's `majorErrorCode` for a failed task). */
    readonly status: number,
    /** VCD's code: BAD_REQUEST, DUPLICATE_NAME, BUSY_ENTITY, ACCESS_TO_RESOURCE_IS_FORBIDDEN, ... */
    readonly minorErrorCode: string,
    message: string,
    /** `METHOD path` of the call (no query string). */
    readonly call = '',
  ) {
    super(message);
  }

  /** Worth retrying later as it is: 5xx, 429, a busy entity, a lost connection. */
  get transient(): boolean {
    return (
      this.status === 0 || this.status === 429 || this.status >= 500 || this.minorErrorCode === 'BUSY_ENTITY'
    );
  }

  /** VCD answers 403 both for "forbidden" and "does not exist". */
  get notFound(): boolean {
    return this.status === 404 || this.status === 403;
  }
}

/**
 * Something the spec names (a VDC, network, storage profile, sizing or placement policy, catalog
 * or template) that VCD does not have: the user's to fix, so conditions say `UnknownReference`
 * rather than blame VCD. Retried with backoff: it may be created later.
 */
export class UnknownReference extends VcdError {
  override readonly name = 'UnknownReference';
  constructor(what: string) {
    super(404, 'NOT_FOUND', `${what} not found`);
  }
}

const parser = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '', removeNSPrefix: true });

/** Reads VCD's error body (XML `<Error>` or JSON `{minorErrorCode, message}`); falls back to the status text. */
export function errorFromBody(status: number, body: string, call: string): VcdError {
  const text = body.trim();
  let minor = '';
  let message = '';
  if (text.startsWith('{')) {
    try {
      const json = JSON.parse(text) as { minorErrorCode?: string; message?: string };
      minor = json.minorErrorCode ?? '';
      message = json.message ?? '';
    } catch {
      // not JSON after all: keep the status text
    }
  } else if (text.startsWith('<')) {
    try {
      const error = (parser.parse(text) as { Error?: Record<string, string> }).Error;
      minor = error?.minorErrorCode ?? '';
      message = error?.message ?? '';
    } catch {
      // not XML after all
    }
  }
  if (!minor) minor = status === 401 ? 'UNAUTHORIZED' : `HTTP_${status}`;
  return new VcdError(status, minor, `${call}: ${status} ${minor}${message ? `: ${message}` : ''}`, call);
}
