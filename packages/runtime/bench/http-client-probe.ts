/**
 * The runtime's own HTTP/1.1 client (`transport/http1/`) beside undici's `Pool`, on the requests
 * the controller probes make, with nothing else loaded (issue 39: should undici replace http1?).
 *   node http-client-probe.js <http1|undici> <read|write> <credentials.json> <namespace> <count>
 * `read`: the namespace's ConfigMaps as one protobuf LIST answer, read whole (not decoded).
 * `write`: a merge patch of a run annotation onto `cm-0..count-1`, 4 in flight on keep-alive
 * connections, as the controller probe's workers do; each answer read whole.
 * Prints `importMs` (loading the client's modules in this fresh process), `ms` (to the last answer,
 * from the process's start) and `cpuMs` (user + system of the whole process).
 * `credentials.json`: `{ server, ca, cert, key }` (PEM text), as floor-probe.ts reads it.
 */
import { readFileSync } from 'node:fs';
import { objectCount } from './object-count.js';

const startupMs = performance.now();
const usage = 'http-client-probe.js <http1|undici> <read|write> <credentials.json> <namespace> <count>';
const [client, mode, credentialsFile, namespace, countText] = process.argv.slice(2) as string[];
const count = objectCount(countText ?? '', usage);
const credentials = JSON.parse(readFileSync(credentialsFile ?? '', 'utf8')) as {
  server: string;
  ca: string;
  cert: string;
  key: string;
};
const server = new URL(credentials.server);
const PROTOBUF = 'application/vnd.kubernetes.protobuf';

/** One request with its whole answer: what both clients are asked to do. */
type Send = (method: string, path: string, headers: Record<string, string>, body?: string) => Promise<number>;

async function http1(): Promise<Send> {
  // The built module, by URL: the bench's own tsc output sits in bench/dist beside it.
  const url = new URL('../../dist/transport/http1/connection-pool.js', import.meta.url).href;
  const { ConnectionPool } = (await import(
    url
  )) as typeof import('../src/transport/http1/connection-pool.js');
  const { ca, cert, key } = credentials;
  const pool = new ConnectionPool({
    host: server.hostname,
    port: Number(server.port || 443),
    authority: server.host,
    tls: { ca, cert, key },
  });
  return async (method, path, headers, body) => {
    const answer = await pool.request({ method, path, headers, body });
    if (answer.status >= 300) throw new Error(`${method} ${path}: ${answer.status}`);
    return answer.body.length;
  };
}

async function undici(): Promise<Send> {
  const { Pool } = await import('undici');
  const { ca, cert, key } = credentials;
  const pool = new Pool(server.origin, { connections: 8, connect: { ca, cert, key } });
  return async (method, path, headers, body) => {
    const answer = await pool.request({ method: method as 'GET', path, headers, body: body ?? null });
    const bytes = Buffer.from(await answer.body.arrayBuffer()).length;
    if (answer.statusCode >= 300) throw new Error(`${method} ${path}: ${answer.statusCode}`);
    return bytes;
  };
}

const importStarted = performance.now();
const send = client === 'http1' ? await http1() : client === 'undici' ? await undici() : undefined;
if (!send) throw new Error(usage);
const importMs = performance.now() - importStarted;

const base = `/api/v1/namespaces/${namespace}/configmaps`;
if (mode === 'read') {
  const bytes = await send('GET', base, { Accept: PROTOBUF });
  if (bytes < count) throw new Error(`read ${bytes} bytes for ${count} ConfigMaps`);
} else if (mode === 'write') {
  const body = JSON.stringify({
    metadata: { annotations: { 'bench.capstan.dev/run': `${client}-${Date.now()}` } },
  });
  const headers = {
    Accept: PROTOBUF,
    'Content-Type': 'application/merge-patch+json',
    'Content-Length': String(Buffer.byteLength(body)),
  };
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < count; i = next++) await send('PATCH', `${base}/cm-${i}`, headers, body);
  };
  await Promise.all([worker(), worker(), worker(), worker()]);
} else throw new Error(usage);
const ms = performance.now();
const cpu = process.cpuUsage();
process.stdout.write(
  `${JSON.stringify({ ms, startupMs, importMs, afterStartupMs: ms - startupMs, cpuMs: (cpu.user + cpu.system) / 1000 })}\n`,
);
process.exit(0);
