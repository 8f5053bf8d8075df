/**
 * CAPVCD's fields accepted but not acted on are named, never dropped in silence: a field is listed
 * exactly when it is set (empty strings, false and empty proxies count as unset; an empty
 * dcGroupConfig is CAPVCD's way of switching DC groups on, so it counts as set).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { VCDClusterSpec } from '../src/api/types.js';
import { specHonouredCondition, unactedClusterFields, unactedMachineFields } from '../src/compat.js';
import type { WithConditions } from '../src/status.js';

const base: VCDClusterSpec = {
  site: 'https://vcd.example.com',
  org: 'o',
  ovdc: 'v',
  ovdcNetwork: 'n',
  userContext: { secretRef: { name: 's' } },
};
const maybeString = fc.option(fc.constantFrom('', 'x'), { nil: undefined });

describe('unactedClusterFields', () => {
  it('lists a CAPVCD field exactly when it is set', () => {
    fc.assert(
      fc.property(
        maybeString,
        maybeString,
        fc.option(fc.boolean(), { nil: undefined }),
        fc.option(fc.record({ httpProxy: maybeString }), { nil: undefined }),
        fc.option(fc.constantFrom('', 'DCGroup'), { nil: undefined }),
        fc.boolean(),
        (rdeId, parentUid, mgmt, proxy, topology, dcGroup) => {
          const spec: VCDClusterSpec = {
            ...base,
            ...(rdeId === undefined ? {} : { rdeId }),
            ...(parentUid === undefined ? {} : { parentUid }),
            ...(mgmt === undefined ? {} : { useAsManagementCluster: mgmt }),
            ...(proxy === undefined ? {} : { proxyConfigSpec: proxy as { httpProxy?: string } }),
            multiZoneSpec: {
              ...(topology === undefined ? {} : { zoneTopology: topology as '' | 'DCGroup' }),
              ...(dcGroup ? { dcGroupConfig: {} } : {}),
            },
          };
          const expected = [
            rdeId === 'x' && 'rdeId',
            parentUid === 'x' && 'parentUid',
            mgmt === true && 'useAsManagementCluster',
            proxy?.httpProxy === 'x' && 'proxyConfigSpec',
            topology === 'DCGroup' && 'multiZoneSpec.zoneTopology',
            dcGroup && 'multiZoneSpec.dcGroupConfig',
          ].filter(Boolean);
          expect(unactedClusterFields(spec)).toEqual(expected);
        },
      ),
    );
  });

  it('says which fields and why in SpecHonoured', () => {
    const status: WithConditions = {};
    specHonouredCondition(
      status,
      { metadata: { generation: 1 } },
      unactedClusterFields({ ...base, rdeId: 'urn' }),
    );
    expect(status.conditions?.[0]).toMatchObject({
      type: 'SpecHonoured',
      status: 'False',
      reason: 'FieldsNotActedOn',
      message: 'set but not acted on: rdeId (no RDE is kept)',
    });
    specHonouredCondition(status, { metadata: { generation: 2 } }, []);
    expect(status.conditions?.[0]).toMatchObject({ status: 'True', reason: 'AllFieldsActedOn' });
  });
});

describe('unactedMachineFields', () => {
  it('lists enableNvidiaGPU and bootstrapped only when true', () => {
    const m = { catalog: 'c', template: 't' };
    expect(unactedMachineFields(m)).toEqual([]);
    expect(unactedMachineFields({ ...m, enableNvidiaGPU: false, bootstrapped: false })).toEqual([]);
    expect(unactedMachineFields({ ...m, enableNvidiaGPU: true, bootstrapped: true })).toEqual([
      'enableNvidiaGPU',
      'bootstrapped',
    ]);
  });
});
