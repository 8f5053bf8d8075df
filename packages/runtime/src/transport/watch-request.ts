/**
 * Opening a watch: the GET whose answer, once the server accepts it, is the event stream an
 * {@link HttpWatch} reads. Over the runtime's own connections, or through node:http (a proxy).
 */
import type http from 'node:http';
import type https from 'node:https';
import type { KubeObject } from '../api/types.js';
import type { Clock } from '../clock.js';
import { HttpWatch, watchOverNode } from './http-watch.js';
import type { Cancellation } from './http1/cancellation.js';
import type { ConnectionPool, PoolRequest } from './http1/connection-pool.js';
import { errorBodyText, readAll } from './protobuf/response-body.js';
import { errorFromAnswer, errorFromResponse } from './response-error.js';
import type { WatchCallbacks, WatchHandle } from './transport.js';

/** What a watch needs from the transport to start. */
export interface WatchStart<T extends KubeObject> {
  callbacks: WatchCallbacks<T>;
  idleTimeoutMs: number;
  clock: Clock;
  /** Bounds the wait for the answer's head (a watch stream itself has no deadline). */
  cancellation: Cancellation | undefined;
  /**
   * The head came (its status code and `Warning` header), or the request failed before one
   * (`<error>`); called once.
   */
  answered(code: string, warning?: string): void;
}

const accepted = (status: number) => status >= 200 && status < 300;

/** Opens a watch on a connection of `pool` of its own; resolves once the server accepted it. */
export function openWatchOverPool<T extends KubeObject>(
  pool: ConnectionPool,
  request: PoolRequest,
  start: WatchStart<T>,
): Promise<WatchHandle> {
  return new Promise<WatchHandle>((resolve, reject) => {
    let watch: HttpWatch<T> | undefined;
    let headCame = false;
    const stream = pool.stream(request, (parser) => {
      headCame = true;
      start.answered(String(parser.status), parser.headers.warning);
      if (!accepted(parser.status)) return; // the body is the error, read whole
      const opened = new HttpWatch(
        parser.headers['content-type'],
        () => stream.destroy(),
        start.callbacks,
        start.idleTimeoutMs,
        start.clock,
      );
      watch = opened;
      parser.sink = (bytes) => opened.receive(bytes);
      resolve(opened);
    });
    start.cancellation?.listen((reason) => stream.destroy(reason));
    stream.answer.then(
      (answer) => {
        if (watch) watch.finish();
        else reject(errorFromAnswer(answer));
      },
      (err: Error) => {
        if (watch) watch.fail(err);
        else {
          if (!headCame) start.answered('<error>');
          reject(err);
        }
      },
    );
  });
}

/** Opens a watch through node:http with `options` (their agent: a proxy's). */
export function openWatchOverNode<T extends KubeObject>(
  client: typeof http | typeof https,
  options: https.RequestOptions,
  start: WatchStart<T>,
): Promise<WatchHandle> {
  return new Promise<WatchHandle>((resolve, reject) => {
    let opened = false;
    const request = client.request(options);
    start.cancellation?.listen((reason) => request.destroy(reason));
    request.on('response', (response) => {
      const code = response.statusCode ?? 0;
      const warning = response.headers.warning;
      start.answered(String(code), Array.isArray(warning) ? warning.join(', ') : warning);
      if (accepted(code)) {
        opened = true;
        const contentType = response.headers['content-type'];
        resolve(
          watchOverNode(
            request,
            response,
            (release) =>
              new HttpWatch(contentType, release, start.callbacks, start.idleTimeoutMs, start.clock),
          ),
        );
        return;
      }
      readAll(response).then((body) => {
        const retryAfter = response.headers['retry-after'];
        reject(errorFromResponse(code, errorBodyText(body, response.headers['content-type']), retryAfter));
      }, reject);
    });
    request.on('error', (err) => {
      if (opened) return; // the watch reports it through onClose
      start.answered('<error>');
      reject(err);
    });
    request.end();
  });
}
