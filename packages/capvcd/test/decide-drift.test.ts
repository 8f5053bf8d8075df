/**
 * The drift decisions: what a provisioned machine's re-read VM leads to, and when it is read. A
 * model of a VM that someone powers off and deletes while the check runs shows the checks put a
 * VM that is only off back on, never act on a gone VM, and read at most once a period.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decideDrift, decideGone, driftReadDue, type Sight } from '../src/decide/drift.js';
import { VmStatus } from '../src/decide/machine.js';

const anyStatus = fc.constantFrom(-1, 0, 1, 3, 4, 8, 10);

describe('decideDrift', () => {
  it('acts only on an idle VM: powered off → PowerOn, on → InPlace, unanswered → Confirm, else waits', () => {
    fc.assert(
      fc.property(
        fc.option(fc.record({ status: anyStatus, busy: fc.boolean() }), { nil: undefined }),
        (vm) => {
          const step = decideDrift(vm);
          if (vm === undefined) expect(step.kind).toBe('Confirm');
          else if (vm.busy) expect(step.kind).toBe('Wait');
          else if (vm.status === VmStatus.PoweredOff) expect(step.kind).toBe('PowerOn');
          else if (vm.status === VmStatus.PoweredOn) expect(step.kind).toBe('InPlace');
          else expect(step.kind).toBe('Wait');
        },
      ),
    );
  });

  it('a VM powered off at random is back on within two checks once left alone, and a gone one stays gone', () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom('off', 'delete', 'none'), { maxLength: 30 }), (meddling) => {
        let vm: { status: number; busy: boolean } | undefined = { status: VmStatus.PoweredOn, busy: false };
        let powerOns = 0;
        const check = () => {
          const step = decideDrift(vm);
          if (step.kind === 'PowerOn') {
            powerOns++;
            vm = { status: VmStatus.PoweredOn, busy: false };
          }
          return step.kind;
        };
        for (const m of meddling) {
          if (m === 'off' && vm) vm = { status: VmStatus.PoweredOff, busy: false };
          if (m === 'delete') vm = undefined;
          const kind = check();
          if (vm === undefined) expect(kind).toBe('Confirm');
        }
        const last = check();
        if (vm === undefined) expect(last).toBe('Confirm');
        else expect([check(), last].includes('InPlace')).toBe(true);
        expect(powerOns).toBeLessThanOrEqual(meddling.filter((m) => m === 'off').length);
      }),
    );
  });
});

const sight = fc.constantFrom<Sight>('holds', 'lacks', 'unreadable');

describe('decideGone', () => {
  it('no Gone without a successful confirming read that proves it', () => {
    fc.assert(
      fc.property(sight, fc.option(sight, { nil: undefined }), (vdc, vapp) => {
        const step = decideGone({ vdc, ...(vapp ? { vapp } : {}) });
        const proven = vdc === 'lacks' || vapp === 'lacks';
        expect(step.kind).toBe(proven ? 'Gone' : 'Unreadable');
      }),
    );
  });

  it('a session that lost rights (every read denied) never sees a machine of its fleet gone', () => {
    fc.assert(
      fc.property(
        fc.array(fc.option(fc.constant<Sight>('unreadable'), { nil: undefined }), { maxLength: 50 }),
        (fleet) => {
          const steps = fleet.map((vapp) => decideGone({ vdc: 'unreadable', ...(vapp ? { vapp } : {}) }));
          expect(steps.filter((s) => s.kind === 'Gone')).toEqual([]);
        },
      ),
    );
  });

  it('a VM deleted while its vApp or VDC stays readable is Gone', () => {
    expect(decideGone({ vdc: 'holds', vapp: 'lacks' }).kind).toBe('Gone');
    expect(decideGone({ vdc: 'lacks' }).kind).toBe('Gone');
    expect(decideGone({ vdc: 'holds', vapp: 'holds' })).toMatchObject({ kind: 'Unreadable' });
  });
});

describe('driftReadDue', () => {
  it('reads at most once a period, at once after a task ended, never when off without a task', () => {
    fc.assert(
      fc.property(
        fc.nat(600_000),
        fc.nat(10_000_000),
        fc.option(fc.nat(10_000_000), { nil: undefined }),
        fc.boolean(),
        (periodMs, now, lastReadAt, taskEnded) => {
          const due = driftReadDue({
            periodMs,
            now,
            taskEnded,
            ...(lastReadAt !== undefined ? { lastReadAt } : {}),
          });
          if (taskEnded) expect(due).toBe(true);
          else if (periodMs === 0) expect(due).toBe(false);
          else if (lastReadAt === undefined) expect(due).toBe(true);
          else expect(due).toBe(now - lastReadAt >= periodMs);
        },
      ),
    );
  });

  it('over a run of reconciles brought by events, reads number at most elapsed/period + 1', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1_000, max: 600_000 }),
        fc.array(fc.nat(120_000), { maxLength: 200 }),
        (periodMs, gaps) => {
          let now = 0;
          let lastReadAt: number | undefined;
          let reads = 0;
          for (const gap of gaps) {
            now += gap;
            if (
              driftReadDue({
                periodMs,
                now,
                taskEnded: false,
                ...(lastReadAt !== undefined ? { lastReadAt } : {}),
              })
            ) {
              reads++;
              lastReadAt = now;
            }
          }
          expect(reads).toBeLessThanOrEqual(Math.floor(now / periodMs) + 1);
        },
      ),
    );
  });
});
