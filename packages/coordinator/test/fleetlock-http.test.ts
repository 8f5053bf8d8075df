/**
 * The FleetLock server's HTTP surface over a real socket: every refusal's status and kind, answers
 * with a Content-Length on a kept-alive connection, an oversized body refused and the connection
 * closed, and the requests counted by endpoint and result. The cluster is an in-memory fake: what
 * is decided here is the server's, not the API server's.
 */
import http from 'node:http';
import { capstanProtocol, coordinatorKeys } from '@capstan/reboot-protocol';
import { Client } from '@capstan/runtime';
import { Lease, Node } from '@capstan/runtime/client';
import { MetricsRegistry } from '@capstan/runtime/manager';
import { FakeCluster, ManualClock } from '@capstan/runtime/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  CoordinatorMetrics,
  FLEETLOCK_HOLDER_KEY,
  FleetLockServer,
  PlannerService,
  RebootGroupType,
} from '../src/index.js';

const MACHINE = '0123456789abcdef0123456789abcdef';
const START = Date.UTC(2025, 0, 6, 12);
let fake: FakeCluster;
let clock: ManualClock;
let metrics: CoordinatorMetrics;
let port: number;
let stop: AbortController;
let running: Promise<void>;
const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });

beforeAll(async () => {
  clock = new ManualClock(START);
  fake = new FakeCluster({ clock, kinds: [Node, RebootGroupType, Lease] });
  fake.seed(Node, { metadata: { name: 'n1' } } as Node);
  await fake.patch(
    Node,
    { name: 'n1' },
    'merge',
    {
      status: {
        nodeInfo: { machineID: MACHINE, bootID: 'b1' },
        conditions: [{ type: 'Ready', status: 'True' }],
      },
    },
    { subresource: 'status' },
  );
  const client = new Client(fake);
  metrics = new CoordinatorMetrics(new MetricsRegistry().registry);
  const planner = new PlannerService({ namespace: 'ops' }, client);
  const server = new FleetLockServer('127.0.0.1:0', { client, planner, clock, metrics }, { waitMs: 0 });
  stop = new AbortController();
  running = server.start(stop.signal);
  port = await server.ready;
});

afterAll(async () => {
  agent.destroy();
  stop.abort();
  await running;
});

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: { kind?: string; value?: string };
  /** The local port of the connection: the same for requests on one kept-alive socket. */
  socketPort: number | undefined;
}

function ask(
  path: string,
  options: { method?: string; header?: boolean; body?: string } = {},
): Promise<Answer> {
  const body = options.body ?? JSON.stringify({ client_params: { id: MACHINE, group: 'default' } });
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: '127.0.0.1',
        port,
        path,
        method: options.method ?? 'POST',
        agent,
        headers: {
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
          ...(options.header === false ? {} : { 'fleet-lock-protocol': 'true' }),
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            body: JSON.parse(Buffer.concat(chunks).toString('utf8')),
            socketPort: res.socket?.localPort,
          }),
        );
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

describe('the FleetLock HTTP surface', () => {
  it('refuses what the protocol refuses, with its status and kind', async () => {
    expect(await ask('/v1/nothing')).toMatchObject({
      status: 404,
      body: { kind: 'failed_not_found', value: 'no such endpoint /v1/nothing' },
    });
    expect(await ask('/v1/pre-reboot', { method: 'PUT' })).toMatchObject({
      status: 405,
      body: { kind: 'failed_method' },
    });
    expect(await ask('/v1/pre-reboot', { header: false })).toMatchObject({
      status: 400,
      body: { kind: 'failed_missing_header' },
    });
    expect(await ask('/v1/steady-state', { body: '{"client_params":' })).toMatchObject({
      status: 400,
      body: { kind: 'failed_bad_request', value: 'body is not JSON' },
    });
    expect(
      await ask('/v1/steady-state', { body: JSON.stringify({ client_params: { id: MACHINE } }) }),
    ).toMatchObject({ status: 400, body: { kind: 'failed_missing_group' } });
    expect(
      await ask('/v1/pre-reboot', { body: JSON.stringify({ client_params: { id: 'x', group: 'default' } }) }),
    ).toMatchObject({ status: 404, body: { kind: 'failed_node_lookup' } });
  });

  it('answers with a Content-Length on one kept-alive connection', async () => {
    const first = await ask('/v1/steady-state?x=1');
    const second = await ask('/v1/steady-state');
    for (const a of [first, second]) {
      expect(a).toMatchObject({ status: 200, body: {} });
      expect(a.headers['content-type']).toBe('application/json');
      expect(a.headers['content-length']).toBe('2');
      expect(a.headers['transfer-encoding']).toBeUndefined();
    }
    expect(second.socketPort).toBe(first.socketPort);
  });

  it('refuses a body over 64 KiB and closes that connection', async () => {
    const big = JSON.stringify({ client_params: { id: 'x'.repeat(70_000), group: 'default' } });
    const refused = await ask('/v1/steady-state', { body: big });
    expect(refused).toMatchObject({ status: 413, body: { kind: 'failed_body_too_large' } });
    expect(refused.headers.connection).toBe('close');
    expect((await ask('/v1/steady-state')).status).toBe(200); // on a new connection
  });

  it('withdraws the request of a refused pre-reboot, and keeps its place in line for the next', async () => {
    // No reconciler grants it here: the client is told the semaphore is full, and its request is
    // withdrawn (a client that went away must not be granted later); it asks again.
    expect(await ask('/v1/pre-reboot')).toMatchObject({
      status: 409,
      body: { kind: 'failed_lock_semaphore_full' },
    });
    const withdrawn = (await fake.get(Node, { name: 'n1' })).metadata.annotations ?? {};
    expect(withdrawn[capstanProtocol.annotations.rebootNeeded]).toBe('false');
    expect(withdrawn[FLEETLOCK_HOLDER_KEY]).toBeUndefined();
    const firstAsked = withdrawn[coordinatorKeys.requestedAt];
    expect(firstAsked).toBe(new Date(START).toISOString());
    clock.advance(60_000);
    expect((await ask('/v1/pre-reboot')).status).toBe(409);
    const again = (await fake.get(Node, { name: 'n1' })).metadata.annotations ?? {};
    expect(again[coordinatorKeys.requestedAt]).toBe(firstAsked);
    expect((await ask('/v1/steady-state')).status).toBe(200);
  });

  it('counts every request by endpoint and result', () => {
    const count = (endpoint: string, result: string) => metrics.fleetlockRequests.value({ endpoint, result });
    expect(count('unknown', 'failed_not_found')).toBe(1);
    expect(count('pre-reboot', 'failed_method')).toBe(1);
    expect(count('steady-state', 'failed_body_too_large')).toBe(1);
    expect(count('pre-reboot', 'failed_lock_semaphore_full')).toBe(2);
    expect(count('steady-state', 'ok')).toBe(4);
  });
});
