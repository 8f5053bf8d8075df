/** The booted version against the one the node rebooted for, as a pure decision. */
import { AGENT_TARGET_VERSION_ANNOTATION, capstanProtocol } from '@capstan/reboot-protocol';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { INITIAL_MEMORY } from '../src/api/index.js';
import { decide } from '../src/decide/decide.js';
import { versionMismatch } from '../src/decide/verify.js';
import { midCycleAnnotations, UNTIMED } from './fixtures.js';

const k = capstanProtocol.annotations;
const config = UNTIMED;

/** The first decision after a reboot for `target`, booted into `booted`. */
function afterReboot(target: string | undefined, booted: string | undefined) {
  return decide(
    {
      now: 1_700_000_000_000,
      node: {
        name: 'n1',
        annotations: {
          ...midCycleAnnotations(),
          ...(target === undefined ? {} : { [AGENT_TARGET_VERSION_ANNOTATION]: target }),
        },
        labels: {},
        unschedulable: true,
        bootID: 'boot-2',
      },
      source: { rebootNeeded: false },
      sourceKnown: true,
      os: { id: 'flatcar', version: booted },
    },
    INITIAL_MEMORY,
    config,
  );
}

describe('the verified version', () => {
  it('property: a mismatch exactly when a target is named and os-release says otherwise', () => {
    const version = fc.option(fc.constantFrom('', '3975.2.0', '3975.2.1', '4012.0.0'), { nil: undefined });
    fc.assert(
      fc.property(version, version, (target, booted) => {
        const why = versionMismatch(target, booted);
        expect(why === undefined).toBe(!target || target === booted);
        const d = afterReboot(target, booted);
        const patch = d.action.kind === 'patch' ? d.action.patch : undefined;
        if (why === undefined) {
          // Verified (or nothing to verify): the usual cleanup, uncordoned, the target dropped.
          expect(d.action).toMatchObject({ kind: 'patch', patch: { unschedulable: false } });
          expect(patch?.annotations[k.rebootInProgress]).toBe('false');
          if (target !== undefined) expect(patch?.annotations[AGENT_TARGET_VERSION_ANNOTATION]).toBeNull();
        } else {
          // Not verified: reported, left in progress and cordoned, never rebooted again.
          expect(d.action).toMatchObject({ kind: 'patch', failure: 'VersionMismatch' });
          expect(patch?.unschedulable).toBeUndefined();
          expect(patch?.annotations[k.rebootInProgress]).toBeUndefined();
          expect(d.memory.awaitingGrantClear).toBe(true);
        }
      }),
    );
  });
});
