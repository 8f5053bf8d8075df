/**
 * What Node.js itself costs for the controller workloads, with no runtime: only `node:https`.
 * The bench shows it beside controller-runtime as the floor under Capstan's figure: what is left
 * between the floor and ours is the runtime's work; what is left between the floor and the
 * baseline is Node's (start-up, its HTTP stack) and the API server's.
 *   node floor-probe.js <read|write> <credentials.json> <namespace> <count>
 * `read`: streams the namespace's ConfigMaps as a watch-list, as protobuf, to the initial-events-end
 * bookmark, decoding nothing. `write`: merge-patches a run annotation onto `cm-0..count-1`, 4 in
 * flight on keep-alive connections, as the controller probe's workers do (answers not decoded).
 * `credentials.json`: `{ server, ca, cert, key }` (PEM text), so no kubeconfig parser is loaded.
 */
import { readFileSync } from 'node:fs';
import https from 'node:https';
import { objectCount } from './object-count.js';

// The module graph is loaded once the body runs: what came before is Node's start-up.
const startupMs = performance.now();
const [mode, credentialsFile, namespace, countText] = process.argv.slice(2) as [
  string,
  string,
  string,
  string,
];
const count = objectCount(countText, 'floor-probe.js <read|write> <credentials.json> <namespace> <count>');
const credentials = JSON.parse(readFileSync(credentialsFile, 'utf8')) as {
  server: string;
  ca: string;
  cert: string;
  key: string;
};
const server = new URL(credentials.server);
const agent = new https.Agent({
  keepAlive: true,
  ca: credentials.ca,
  cert: credentials.cert,
  key: credentials.key,
});
const PROTOBUF = 'application/vnd.kubernetes.protobuf';
const INITIAL_EVENTS_END = Buffer.from('k8s.io/initial-events-end');

/** One request; resolves when its whole answer has arrived (`until`: or when it says so). */
function request(
  method: string,
  path: string,
  headers: Record<string, string | number>,
  body?: string,
  until?: (chunk: Buffer, previous: Buffer | undefined) => boolean,
): Promise<void> {
  return new Promise((resolve, reject) => {
    const req = https.request(
      { agent, method, hostname: server.hostname, port: server.port, path, headers },
      (res) => {
        if ((res.statusCode ?? 0) >= 300) reject(new Error(`${method} ${path}: ${res.statusCode}`));
        let previous: Buffer | undefined;
        res.on('data', (chunk: Buffer) => {
          if (until?.(chunk, previous)) {
            resolve();
            req.destroy();
          }
          previous = chunk;
        });
        // A stream that ends before it said so (`until`) did not deliver what was asked.
        res.on('end', () => (until ? reject(new Error(`${method} ${path}: ended early`)) : resolve()));
        res.on('error', reject);
      },
    );
    req.on('error', (err) => {
      if (!until) reject(err);
    });
    req.end(body);
  });
}

/** Whether the bookmark's annotation is in `chunk`, or across it and the chunk before. */
function bookmarkIn(chunk: Buffer, previous: Buffer | undefined): boolean {
  if (chunk.includes(INITIAL_EVENTS_END)) return true;
  if (!previous) return false;
  const seam = Buffer.concat([previous.subarray(-INITIAL_EVENTS_END.length), chunk.subarray(0, 64)]);
  return seam.includes(INITIAL_EVENTS_END);
}

const base = `/api/v1/namespaces/${namespace}/configmaps`;
if (mode === 'read') {
  const query = 'watch=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true';
  await request('GET', `${base}?${query}`, { Accept: `${PROTOBUF};type=watch` }, undefined, bookmarkIn);
} else if (mode === 'write') {
  const body = JSON.stringify({
    metadata: { annotations: { 'bench.capstan.dev/run': `floor-${Date.now()}` } },
  });
  const headers = {
    Accept: PROTOBUF,
    'Content-Type': 'application/merge-patch+json',
    'Content-Length': Buffer.byteLength(body),
  };
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < count; i = next++) await request('PATCH', `${base}/cm-${i}`, headers, body);
  };
  await Promise.all([worker(), worker(), worker(), worker()]);
} else throw new Error(`floor-probe: unknown mode ${mode}`);
const ms = performance.now();
process.stdout.write(`${JSON.stringify({ ms, startupMs, afterStartupMs: ms - startupMs })}\n`);
process.exit(0);
