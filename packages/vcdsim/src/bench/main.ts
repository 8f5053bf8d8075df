/**
 * `npm run bench` row for vcdsim: requests per second served over HTTPS with keep-alive, for the
 * mix a provider sends (VM GET, query, task GET, CloudAPI summaries), beside a bare `node:https`
 * server answering the same bytes on the same machine (the ratio is the simulator's own cost).
 */
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { callSim } from '../http-client.js';
import { startVcdSim } from '../start.js';
import { generateTls } from '../tls/ca.js';

const CLIENTS = Number(process.env.BENCH_CLIENTS ?? 16);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 3);
const SEED = fileURLToPath(new URL('../../seeds/sample.yaml', import.meta.url));

interface Target {
  base: string;
  ca: string;
  headers: Record<string, string>;
  paths: string[];
}

/** Requests per second over `seconds`, `clients` keep-alive connections cycling through the paths. */
async function load(t: Target, seconds: number): Promise<number> {
  const agent = new https.Agent({ keepAlive: true, maxSockets: CLIENTS, ca: t.ca });
  let done = 0;
  const until = performance.now() + seconds * 1000;
  const client = async (n: number) => {
    for (let i = n; performance.now() < until; i++) {
      const r = await callSim({ url: t.base, caPem: t.ca }, 'GET', t.paths[i % t.paths.length]!, {
        headers: t.headers,
        agent,
      });
      if (r.status !== 200) throw new Error(`GET answered ${r.status}: ${r.text.slice(0, 200)}`);
      done++;
    }
  };
  const start = performance.now();
  await Promise.all(Array.from({ length: CLIENTS }, (_, n) => client(n)));
  agent.destroy();
  return done / ((performance.now() - start) / 1000);
}

async function simulatorTarget() {
  const sim = await startVcdSim({ seed: SEED, taskLatencyMs: 1, bootDelayMs: 1 });
  const t: Target = {
    base: sim.url,
    ca: sim.caPem,
    headers: { Accept: 'application/*;version=37.2' },
    paths: [],
  };
  const call = async (method: string, path: string, body?: string, type?: string) => {
    const a = await callSim(sim, method, path, {
      headers: { ...t.headers, ...(type ? { 'Content-Type': type } : {}) },
      ...(body ? { body } : {}),
    });
    return { status: a.status, headers: a.headers, body: a.text };
  };
  const login = String(
    (
      await callSim(sim, 'POST', '/cloudapi/1.0.0/sessions', {
        headers: {
          ...t.headers,
          Authorization: `Basic ${Buffer.from('alice@tenant-a:alice-password').toString('base64')}`,
        },
      })
    ).headers['x-vmware-vcloud-access-token'],
  );
  t.headers.Authorization = `Bearer ${login}`;
  const href = (xml: string, tag: string) =>
    new URL(new RegExp(`<${tag}[^>]* href="([^"]+)"`).exec(xml)![1]!).pathname;
  const vdc = href((await call('GET', '/api/query?type=orgVdc&filter=name==vdc-a')).body, 'OrgVdcRecord');
  const net = (await call('GET', '/api/query?type=orgVdcNetwork&filter=name==net-a')).body;
  const netHref = /<OrgVdcNetworkRecord[^>]* href="([^"]+)"/.exec(net)![1]!;
  const tpl = href(
    (await call('GET', '/api/query?type=vAppTemplate&filter=name==ubuntu*')).body,
    'VAppTemplateRecord',
  );
  const tvm = /<Vm[^>]* href="([^"]+)"/.exec((await call('GET', tpl)).body)![1]!;
  const ns = 'xmlns="http://www.vmware.com/vcloud/v1.5" xmlns:ovf="http://schemas.dmtf.org/ovf/envelope/1"';
  const composed = await call(
    'POST',
    `${vdc}/action/composeVApp`,
    `<ComposeVAppParams ${ns} name="bench"><InstantiationParams><NetworkConfigSection><ovf:Info>n</ovf:Info><NetworkConfig networkName="net-a"><Configuration><ParentNetwork href="${netHref}"/><FenceMode>bridged</FenceMode></Configuration></NetworkConfig></NetworkConfigSection></InstantiationParams><SourcedItem><Source href="${tvm}"/><VmGeneralParams><Name>bench-vm</Name></VmGeneralParams><InstantiationParams><NetworkConnectionSection><ovf:Info>n</ovf:Info><NetworkConnection network="net-a"><NetworkConnectionIndex>0</NetworkConnectionIndex><IpAddressAllocationMode>POOL</IpAddressAllocationMode></NetworkConnection></NetworkConnectionSection></InstantiationParams></SourcedItem></ComposeVAppParams>`,
    'application/vnd.vmware.vcloud.composeVAppParams+xml',
  );
  const taskPath = href(composed.body, 'Task');
  await new Promise((r) => setTimeout(r, 50));
  const vmPath = `/api/vApp/vm-${sim.inspect.vm('bench-vm')!.id}`;
  const gw = JSON.parse((await call('GET', '/cloudapi/1.0.0/edgeGateways')).body).values[0].id;
  t.paths = [
    vmPath,
    '/api/query?type=vm&filter=name==bench*',
    taskPath,
    `/cloudapi/1.0.0/edgeGateways/${gw}/loadBalancer/virtualServiceSummaries`,
  ];
  const vmBody = (await call('GET', vmPath)).body;
  return { sim, t, vmBody };
}

async function bareTarget(body: string) {
  const tls = generateTls();
  const server = https.createServer({ key: tls.keyPem, cert: tls.certPem, keepAlive: true }, (_req, res) => {
    res.writeHead(200, {
      'Content-Type': 'application/vnd.vmware.vcloud.vm+xml;version=37.2',
      'Content-Length': Buffer.byteLength(body),
    });
    res.end(body);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const t: Target = {
    base: `https://127.0.0.1:${(server.address() as AddressInfo).port}`,
    ca: tls.caPem,
    headers: {},
    paths: ['/'],
  };
  return { server, t };
}

const { sim, t, vmBody } = await simulatorTarget();
const bare = await bareTarget(vmBody);
try {
  await load(t, 0.5);
  await load(bare.t, 0.5);
  const ours = await load(t, SECONDS);
  const base = await load(bare.t, SECONDS);
  const row = (name: string, a: string, b: string, ratio: number, target: string) =>
    `${name.padEnd(30)}${a.padStart(14)}${b.padStart(16)}${ratio.toFixed(2).padStart(9)}x   ${target}`;
  console.log(row('vcdsim', 'req/s served', 'bare https', 1, ''));
  console.log(
    row(
      '  requests per second',
      ours.toFixed(0),
      base.toFixed(0),
      ours / base,
      `(${CLIENTS} keep-alive clients; target >= 500 req/s)`,
    ),
  );
  if (sim.inspect.errors().length > 0)
    throw new Error(`simulator errors: ${String(sim.inspect.errors()[0]?.error)}`);
} finally {
  await sim.stop();
  await new Promise<void>((r) => {
    bare.server.close(() => r());
    bare.server.closeAllConnections();
  });
}
