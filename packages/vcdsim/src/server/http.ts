/** The request context handlers receive and the replies they return. */
import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import type { Session } from '../auth/sessions.js';
import { errors } from './errors.js';

/** What a handler answers. The server adds the API version to versioned media types. */
export interface Reply {
  status: number;
  body?: string;
  /** Media type without parameters, e.g. `application/vnd.vmware.vcloud.vm+xml`. */
  contentType?: string;
  headers?: Record<string, string>;
}

/** What handlers read of a request beside its body: an HTTP request, or one served in-process. */
export interface RequestHead {
  readonly method?: string | undefined;
  readonly url?: string | undefined;
  readonly headers: IncomingHttpHeaders;
}

/** One request, as a handler sees it. */
export interface Ctx {
  readonly req: RequestHead;
  readonly method: string;
  /** The path without query string, percent-decoding left to the handler's params. */
  readonly path: string;
  readonly query: URLSearchParams;
  /** Values of `{name}` segments of the matched route. */
  readonly params: Record<string, string>;
  /** `https://host:port`: hrefs in answers are absolute, as VCD writes them. */
  readonly base: string;
  /** The negotiated API version (from `Accept`), e.g. `37.2`. */
  readonly version: string;
  /** The caller's session (set on authenticated routes). */
  session: Session | undefined;
  /** The raw body (read once, limited in size). */
  body(): Promise<Buffer>;
}

const MAX_BODY = 16 * 1024 * 1024;

/**
 * Reads a request body. A body over 16 MiB is drained (so the answer still reaches the client) and
 * refused with VCD's 400.
 */
export function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size <= MAX_BODY) chunks.push(c);
    });
    req.on('end', () =>
      size > MAX_BODY
        ? reject(errors.badRequest('request body is too large'))
        : resolve(Buffer.concat(chunks)),
    );
    req.on('error', reject);
  });
}

/** The media type of a header value without its parameters, lower-cased. */
export function mediaTypeOf(header: string | undefined): string {
  return (header ?? '').split(';')[0]!.trim().toLowerCase();
}

/** Throws VCD's 415 unless the request's Content-Type is `want` (case-insensitive, as VCD documents). */
export function requireContentType(ctx: Ctx, want: string): void {
  const got = mediaTypeOf(ctx.req.headers['content-type']);
  if (got !== want.toLowerCase()) throw errors.unsupportedMediaType(got || '(none)', want);
}

/** An XML reply of the given media type. */
export const xml = (
  status: number,
  contentType: string,
  body: string,
  headers?: Record<string, string>,
): Reply => ({
  status,
  contentType,
  body,
  ...(headers ? { headers } : {}),
});

/** A JSON reply. */
export const json = (status: number, value: unknown, headers?: Record<string, string>): Reply => ({
  status,
  contentType: 'application/json',
  body: JSON.stringify(value),
  ...(headers ? { headers } : {}),
});

/** An empty reply (e.g. 204, or CloudAPI's 202 with a `Location` task). */
export const empty = (status: number, headers?: Record<string, string>): Reply => ({
  status,
  ...(headers ? { headers } : {}),
});
