/**
 * What an operator sets from the command line for the default group and FleetLock: reboot
 * windows for the default group, and whether a FleetLock request may leave out its group.
 */

import { capstanProtocol } from '@capstan/reboot-protocol';
import { Client, parseStandardOptions } from '@capstan/runtime';
import { Lease, Node } from '@capstan/runtime/client';
import { FakeCluster, ManualClock } from '@capstan/runtime/testing';
import { describe, expect, it } from 'vitest';
import {
  addCoordinatorFlags,
  type CoordinatorFlags,
  coordinatorOptionsFromFlags,
  FleetLockServer,
  PlannerService,
  RebootGroupType,
} from '../src/index.js';

const parse = (argv: string[]) =>
  coordinatorOptionsFromFlags(
    parseStandardOptions<CoordinatorFlags>(argv, { name: 'c', extend: addCoordinatorFlags }).extra,
    'ops',
  );

describe('--default-reboot-window', () => {
  it('gives the default group its windows, so it waits outside them', () => {
    const options = parse([
      '--default-reboot-window',
      'Sat,Sun 02:00-06:00 Europe/Berlin',
      '--default-reboot-window',
      '22:00-01:00',
    ]);
    expect(options.defaultGroup?.windows).toEqual([
      { days: ['Sat', 'Sun'], start: '02:00', end: '06:00', timeZone: 'Europe/Berlin' },
      { start: '22:00', end: '01:00' },
    ]);
    const monday = Date.UTC(2025, 0, 6, 12, 0, 0);
    const planner = new PlannerService(options, {} as Client);
    const asking = {
      metadata: {
        name: 'n1',
        resourceVersion: '1',
        annotations: { [capstanProtocol.annotations.rebootNeeded]: 'true' },
      },
      status: { conditions: [{ type: 'Ready', status: 'True' }], nodeInfo: { bootID: 'b1' } },
    } as unknown as Node;
    const { plan } = planner.planFor({ nodes: [asking], groups: [] }, monday);
    expect(plan.groupStatus.default?.windowOpen).toBe(false);
    expect(plan.groupStatus.default?.queue).toMatchObject([{ node: 'n1', reason: 'OutsideWindow' }]);
  });

  it('refuses a window it cannot use, naming the flag', () => {
    expect(() => parse(['--default-reboot-window', 'Mon'])).toThrow(
      /--default-reboot-window "Mon" needs a time range/,
    );
    expect(() => parse(['--default-reboot-window', '02:00-02:00'])).toThrow(/start equals end/);
    expect(() => parse(['--default-reboot-window', '02:00-03:00 Mars/Base'])).toThrow(/Mars\/Base/);
  });
});

describe('a FleetLock request without a group', () => {
  async function ask(allowMissingGroup: boolean): Promise<{ status: number; kind?: string }> {
    const clock = new ManualClock(Date.UTC(2025, 0, 6, 12));
    const fake = new FakeCluster({ clock, kinds: [Node, RebootGroupType, Lease] });
    const client = new Client(fake);
    const planner = new PlannerService({ namespace: 'ops' }, client);
    const server = new FleetLockServer(':0', { client, planner, clock }, { waitMs: 0, allowMissingGroup });
    const stop = new AbortController();
    const running = server.start(stop.signal);
    try {
      const port = await server.ready;
      const res = await fetch(`http://127.0.0.1:${port}/v1/pre-reboot`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'fleet-lock-protocol': 'true' },
        body: JSON.stringify({ client_params: { id: 'no-such-machine' } }),
      });
      return { status: res.status, kind: ((await res.json()) as { kind?: string }).kind };
    } finally {
      stop.abort();
      await running;
    }
  }

  it('is refused with failed_missing_group by default', async () => {
    expect(await ask(false)).toEqual({ status: 400, kind: 'failed_missing_group' });
  });

  it('is taken as the default group when the lenient flag allows it', async () => {
    // It gets as far as looking up its node (there is none).
    expect(await ask(true)).toEqual({ status: 404, kind: 'failed_node_lookup' });
    expect(parse(['--fleetlock-allow-missing-group']).fleetlock?.allowMissingGroup).toBe(true);
    expect(parse([]).fleetlock?.allowMissingGroup).toBe(false);
  });
});
