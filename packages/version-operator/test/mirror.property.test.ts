/**
 * Mirroring a node's keys between FLUO's prefix and ours: properties over arbitrary nodes (any
 * mix of waiting, granted, mid-reboot, paused and garbage values) and any speakers.
 */
import { capstanProtocol, fluoProtocol, type Protocol, protocolOf, readFlag } from '@capstan/reboot-protocol';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { applyPatch, isEmptyPatch, mirrorNode, type NodeKeys, type Speakers } from '../src/decide/mirror.js';

const flagValue = fc.constantFrom(undefined, 'true', 'false', 'garbage');
const text = fc.constantFrom(
  undefined,
  'UPDATE_STATUS_IDLE',
  'UPDATE_STATUS_UPDATED_NEED_REBOOT',
  '1700000000',
  '',
);

/** One side's keys under `p`. */
const side = (p: Protocol) =>
  fc
    .record({
      needed: flagValue,
      ok: flagValue,
      inProgress: flagValue,
      paused: flagValue,
      status: text,
      made: flagValue,
      before: fc.constantFrom(undefined, 'true'),
    })
    .map((v) => {
      const a: Record<string, string> = {};
      const l: Record<string, string> = {};
      const set = (o: Record<string, string>, k: string, x: string | undefined) => {
        if (x !== undefined) o[k] = x;
      };
      set(a, p.annotations.rebootNeeded, v.needed);
      set(a, p.annotations.rebootOk, v.ok);
      set(a, p.annotations.rebootInProgress, v.inProgress);
      set(a, p.annotations.rebootPaused, v.paused);
      set(a, p.annotations.status, v.status);
      set(a, p.annotations.agentMadeUnschedulable, v.made);
      set(l, p.labels.beforeReboot, v.before);
      return { a, l };
    });

const node: fc.Arbitrary<NodeKeys> = fc
  .tuple(side(fluoProtocol), side(capstanProtocol), fc.constantFrom(undefined, 'node-boot-1'))
  .map(([f, c, boot]) => ({
    annotations: { ...f.a, ...c.a, ...(boot ? { 'reboot.capstan.dev/granted-boot-id': boot } : {}) },
    labels: { ...f.l, ...c.l },
  }));

const speakers: fc.Arbitrary<Speakers> = fc.record({
  coordinator: fc.constantFrom('fluo' as const, 'capstan' as const),
  agent: fc.constantFrom('fluo' as const, 'capstan' as const, undefined),
});

const flag = (n: NodeKeys, p: Protocol, role: keyof Protocol['annotations']) =>
  readFlag(n.annotations, p.annotations[role]).value;

describe('mirrorNode', () => {
  it('after mirroring, both sides read what the writer last wrote: requests and grants kept, none added', () => {
    fc.assert(
      fc.property(node, speakers, (n, s) => {
        const after = applyPatch(n, mirrorNode(n, s, 'fluo', 'capstan'));
        const coordinator = protocolOf(s.coordinator);
        // The grant is the coordinator's: exactly what its own side says, on both sides.
        for (const p of [fluoProtocol, capstanProtocol]) {
          expect(flag(after, p, 'rebootOk')).toBe(flag(n, coordinator, 'rebootOk'));
        }
        if (s.agent) {
          const agent = protocolOf(s.agent);
          for (const p of [fluoProtocol, capstanProtocol]) {
            expect(flag(after, p, 'rebootNeeded')).toBe(flag(n, agent, 'rebootNeeded'));
            expect(flag(after, p, 'rebootInProgress')).toBe(flag(n, agent, 'rebootInProgress'));
            expect(after.annotations[p.annotations.status]).toBe(n.annotations[agent.annotations.status]);
          }
        } else {
          // No single agent runs: its keys are left exactly as they are.
          for (const p of [fluoProtocol, capstanProtocol]) {
            expect(after.annotations[p.annotations.rebootNeeded]).toBe(
              n.annotations[p.annotations.rebootNeeded],
            );
          }
        }
        // A pause on the old side is never dropped.
        if (flag(n, fluoProtocol, 'rebootPaused'))
          expect(flag(after, capstanProtocol, 'rebootPaused')).toBe(true);
        // The coordinator's bookkeeping (the boot-ID fence) is never touched.
        expect(after.annotations['reboot.capstan.dev/granted-boot-id']).toBe(
          n.annotations['reboot.capstan.dev/granted-boot-id'],
        );
      }),
      { numRuns: 2000 },
    );
  });

  it('never adds a grant or an in-flight node (the budget holds)', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(node, speakers), { maxLength: 12 }), (nodes) => {
        const inFlight = (n: NodeKeys, s: Speakers) =>
          flag(n, protocolOf(s.coordinator), 'rebootOk') ||
          (s.agent !== undefined && flag(n, protocolOf(s.agent), 'rebootInProgress'));
        const before = nodes.filter(([n, s]) => inFlight(n, s)).length;
        const after = nodes.filter(([n, s]) =>
          inFlight(applyPatch(n, mirrorNode(n, s, 'fluo', 'capstan')), s),
        ).length;
        expect(after).toBe(before);
      }),
    );
  });

  it('is idempotent: a mirrored node needs no second write', () => {
    fc.assert(
      fc.property(node, speakers, (n, s) => {
        const once = applyPatch(n, mirrorNode(n, s, 'fluo', 'capstan'));
        expect(isEmptyPatch(mirrorNode(once, s, 'fluo', 'capstan'))).toBe(true);
      }),
      { numRuns: 2000 },
    );
  });

  it('spells a withdrawn grant as each side does: FLUO writes "false", ours removes the key', () => {
    const granted: NodeKeys = {
      annotations: {
        [fluoProtocol.annotations.rebootOk]: 'true',
        [capstanProtocol.annotations.rebootOk]: 'true',
      },
      labels: {},
    };
    const withdrawnOurs = applyPatch(granted, {
      annotations: { [capstanProtocol.annotations.rebootOk]: null },
      labels: {},
    });
    const patch = mirrorNode(withdrawnOurs, { coordinator: 'capstan', agent: 'fluo' }, 'fluo', 'capstan');
    expect(patch.annotations).toEqual({ [fluoProtocol.annotations.rebootOk]: 'false' });
    const withdrawnFluo = {
      annotations: {
        [fluoProtocol.annotations.rebootOk]: 'false',
        [capstanProtocol.annotations.rebootOk]: 'true',
      },
      labels: {},
    };
    expect(
      mirrorNode(withdrawnFluo, { coordinator: 'fluo', agent: 'fluo' }, 'fluo', 'capstan').annotations,
    ).toEqual({
      [capstanProtocol.annotations.rebootOk]: null,
    });
  });
});
