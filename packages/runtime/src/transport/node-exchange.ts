/**
 * A whole-answer request through `node:http(s)`, for a transport whose requests go through a
 * proxy agent (client-node's), where the runtime's own connection pool cannot go.
 */
import type http from 'node:http';
import type https from 'node:https';
import type { Cancellation } from './http1/cancellation.js';
import type { Answer, ResponseHeaders } from './http1/response-parser.js';

/** Sends `options` with `body`, and reads the whole answer; cancelling destroys the request. */
export function exchangeThroughNode(
  client: typeof http | typeof https,
  options: https.RequestOptions,
  body: string | undefined,
  cancellation: Cancellation | undefined,
): Promise<Answer> {
  return new Promise<Answer>((resolve, reject) => {
    const request = client.request(options, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('error', reject);
      response.on('close', () => {
        if (!response.complete) reject(new Error('the connection closed mid-answer'));
      });
      response.on('end', () => {
        const headers: ResponseHeaders = {};
        for (const [name, value] of Object.entries(response.headers))
          if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(', ') : value;
        resolve({ status: response.statusCode ?? 0, headers, body: Buffer.concat(chunks) });
      });
    });
    request.on('error', reject);
    cancellation?.listen((reason) => request.destroy(reason));
    request.end(body);
  });
}
