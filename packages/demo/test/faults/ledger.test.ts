/**
 * The fault suite's ledger decides what a violation is; these cases show it sees each one (and
 * nothing in a clean cycle), so the suite's "no violations" can fail.
 */
import { capstanProtocol, coordinatorKeys } from '@capstan/reboot-protocol';
import type { Node } from '@capstan/runtime/client';
import { describe, expect, it } from 'vitest';
import { FleetLedger } from './ledger.js';

const A = capstanProtocol.annotations;

function node(
  name: string,
  bootID: string,
  state: { granted?: string; ready?: boolean; cordoned?: boolean } = {},
): Node {
  return {
    metadata: {
      name,
      annotations: state.granted
        ? { [A.rebootOk]: 'true', [coordinatorKeys.grantedBootId]: state.granted }
        : {},
    },
    spec: { unschedulable: state.cordoned ?? false },
    status: {
      nodeInfo: { bootID },
      conditions: [{ type: 'Ready', status: state.ready === false ? 'False' : 'True' }],
    },
  } as Node;
}

const ledger = () => {
  const l = new FleetLedger(capstanProtocol, [{ name: 'g', budget: 1, nodes: ['a', 'b'] }]);
  l.record(node('a', 'a1'));
  l.record(node('b', 'b1'));
  l.arm();
  return l;
};

describe('the fault suite ledger', () => {
  it('records a granted reboot, one at a time, as no violation', () => {
    const l = ledger();
    l.record(node('a', 'a1', { granted: 'a1' }));
    l.record(node('a', 'a1', { granted: 'a1', ready: false }));
    l.record(node('a', 'a2', { granted: 'a1' }));
    l.record(node('a', 'a2'));
    l.record(node('b', 'b1', { granted: 'b1', cordoned: true }));
    l.record(node('b', 'b2', { granted: 'b1' }));
    expect(l.violations).toEqual([]);
    expect([l.reboots('a'), l.grants('a'), l.mostDisrupted('g')]).toEqual([1, 1, 1]);
  });

  it('sees a group over its budget', () => {
    const l = ledger();
    l.record(node('a', 'a1', { granted: 'a1' }));
    l.record(node('b', 'b1', { ready: false }));
    expect(l.violations).toEqual([expect.stringContaining('g: 2 nodes disrupted at once, budget 1')]);
  });

  it('sees a reboot without a grant, and a second reboot under one grant', () => {
    const l = ledger();
    l.record(node('b', 'b2'));
    l.record(node('a', 'a1', { granted: 'a1' }));
    l.record(node('a', 'a2', { granted: 'a1' }));
    l.record(node('a', 'a3', { granted: 'a1' }));
    expect(l.violations).toEqual([
      expect.stringContaining('b rebooted out of boot b1, which no grant was seen for'),
      expect.stringContaining('a rebooted out of boot a2, which no grant was seen for'),
    ]);
  });
});
