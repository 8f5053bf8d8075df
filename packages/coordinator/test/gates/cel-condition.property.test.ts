/**
 * The conditions gate's decision over CEL: true for every object opens it; false for one closes
 * it naming that object; a compile error, an evaluation error (a missing field) or a result that
 * is not a boolean is an Error state, never an open gate and never a throw.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { conditionVerdict } from '../../src/gates/cel-condition.js';
import { pluralOf } from '../../src/gates/condition-reads.js';

const ceph = (health: string) => ({ metadata: { name: 'c' }, status: { ceph: { health } } });

describe('conditionVerdict', () => {
  it('is open iff the expression holds for every object', () => {
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom('HEALTH_OK', 'HEALTH_WARN', 'HEALTH_ERR'), { maxLength: 5 }),
        (hs) => {
          const v = conditionVerdict({
            gate: 'conditions[0]',
            expression: "object.status.ceph.health == 'HEALTH_OK'",
            objects: hs.map((h, i) => ({ name: `c${i}`, object: ceph(h) })),
          });
          const bad = hs.findIndex((h) => h !== 'HEALTH_OK');
          expect(v.state).toBe(bad < 0 ? 'Open' : 'Closed');
          if (bad >= 0) expect(v.message).toContain(`c${bad}`);
        },
      ),
    );
  });

  it('reports a compile error, an evaluation error and a non-boolean as Error', () => {
    const objects = [{ name: 'c', object: ceph('HEALTH_OK') }];
    for (const expression of ['object.status ==', 'object.status.nope == 1', 'object.status.ceph.health']) {
      const v = conditionVerdict({ gate: 'conditions[0]', expression, objects });
      expect(v.state, expression).toBe('Error');
    }
    expect(conditionVerdict({ gate: 'x', expression: 'true', objects: new Error('forbidden') })).toEqual({
      gate: 'x',
      state: 'Error',
      message: 'forbidden',
    });
  });

  it('never throws and never opens on an arbitrary expression that does not hold', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 30 }), (expression) => {
        const v = conditionVerdict({
          gate: 'g',
          expression,
          objects: [{ name: 'c', object: ceph('HEALTH_OK') }],
        });
        expect(['Open', 'Closed', 'Error']).toContain(v.state);
        if (v.state === 'Open') expect(v.message).toContain(expression);
      }),
    );
  });
});

describe('pluralOf', () => {
  it('follows the common English rules CRD generators use', () => {
    expect(['CephCluster', 'Ingress', 'Policy', 'Gateway', 'Box'].map(pluralOf)).toEqual([
      'cephclusters',
      'ingresses',
      'policies',
      'gateways',
      'boxes',
    ]);
  });
});
