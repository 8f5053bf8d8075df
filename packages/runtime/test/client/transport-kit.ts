/** What the HttpTransport tests share: a local HTTP server per test, closed after it, and a watch recorder. */
import type http from 'node:http';
import { afterEach } from 'vitest';
import type { KubeObject, WatchEvent } from '../../src/api/types.js';
import { HttpTransport } from '../../src/transport/http-transport.js';
import type { WatchCallbacks } from '../../src/transport/transport.js';
import { type LocalServer, type RecordedRequest, startLocalServer } from './local-server.js';

export const cm = (name: string, rv = '1') => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace: 'ns', resourceVersion: rv },
});

export function watchRecorder() {
  const events: WatchEvent[] = [];
  const closes: Array<Error | undefined> = [];
  let onClosed: (err: Error | undefined) => void = () => {};
  const closed = new Promise<Error | undefined>((resolve) => {
    onClosed = resolve;
  });
  const callbacks: WatchCallbacks<KubeObject> = {
    onEvent: (e) => events.push(e),
    onClose: (err) => {
      closes.push(err);
      onClosed(err);
    },
  };
  return { events, closes, closed, callbacks };
}

let server: LocalServer | undefined;
let transport: HttpTransport | undefined;
afterEach(async () => {
  transport?.close();
  await server?.close();
  server = undefined;
  transport = undefined;
});

export async function setup(
  handler: (req: http.IncomingMessage, res: http.ServerResponse, recorded: RecordedRequest) => void,
  options: ConstructorParameters<typeof HttpTransport>[1] = {},
) {
  server = await startLocalServer(handler);
  // JSON unless a test asks for protobuf: with it the transport first asks the server's /version.
  transport = new HttpTransport(server.kubeConfig, { protobuf: false, ...options });
  return { server, transport };
}
