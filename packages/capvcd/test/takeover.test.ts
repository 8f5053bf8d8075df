/**
 * The takeover view of a CAPVCD vApp (pure): it makes the vApp and the machine's VM ours only when
 * the VCDCluster names the infra ID the vApp's metadata carries, and never takes another of our
 * objects or another VM.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { VCDCluster } from '../src/api/types.js';
import { clusterHome } from '../src/cluster-home.js';
import type { ObservedVApp, ObservedVM } from '../src/decide/machine.js';
import {
  ADOPT_CAPVCD_ANNOTATION,
  adoptedInfraId,
  capvcdLoadBalancerName,
  capvcdVmName,
  capvcdZoneVAppName,
  loadBalancerNameOf,
  takenOver,
  takesOverDcGroup,
} from '../src/takeover.js';

const markers = {
  vmName: 'c1-cp-0',
  vappMarker: 'capvcd.capstan.dev cluster ns/c1',
  vmMarker: 'capvcd.capstan.dev machine ns/c1-cp-0',
};

const vmArb = fc.record({
  name: fc.constantFrom('c1-cp-0', 'c1-cp-1', 'c1-md-0-x'),
  status: fc.constantFrom(4, 8),
  deployed: fc.boolean(),
  busy: fc.boolean(),
  description: fc.constantFrom('', 'made by CAPVCD', 'capvcd.capstan.dev machine ns/other'),
  extraConfig: fc.constant({}),
}) satisfies fc.Arbitrary<ObservedVM>;

const vappArb = fc.record({
  deployed: fc.boolean(),
  busy: fc.boolean(),
  description: fc.constantFrom('', markers.vappMarker, 'capvcd.capstan.dev cluster ns/other'),
  vms: fc.array(vmArb, { maxLength: 4 }),
}) satisfies fc.Arbitrary<ObservedVApp>;

const ids = fc.option(fc.constantFrom('NO_RDE_1', 'urn:vcloud:entity:x:2'), { nil: undefined });

describe('takenOver', () => {
  it('changes nothing unless the vApp carries the infra ID taken over and is not ours already', () => {
    fc.assert(
      fc.property(vappArb, ids, ids, (vapp, infraId, onVApp) => {
        const view = takenOver(vapp, markers, infraId, onVApp);
        const adopts =
          infraId !== undefined && onVApp === infraId && !vapp.description.startsWith('capvcd.capstan.dev ');
        if (!adopts) expect(view).toBe(vapp);
        else expect(view.description).toBe(markers.vappMarker);
      }),
    );
  });

  it('marks only the machine’s VM of its name, never one of our other machines, and keeps the rest', () => {
    fc.assert(
      fc.property(vappArb, (vapp) => {
        const view = takenOver({ ...vapp, description: '' }, markers, 'NO_RDE_1', 'NO_RDE_1');
        expect(view.vms).toHaveLength(vapp.vms.length);
        view.vms.forEach((vm, i) => {
          const before = vapp.vms[i] as ObservedVM;
          const taken =
            before.name === markers.vmName && !before.description.startsWith('capvcd.capstan.dev ');
          expect(vm.description).toBe(taken ? markers.vmMarker : before.description);
          expect({ ...vm, description: '' }).toEqual({ ...before, description: '' });
        });
      }),
    );
  });
});

const cluster = (annotations?: Record<string, string>): VCDCluster =>
  ({
    metadata: { name: 'c1', namespace: 'ns', ...(annotations ? { annotations } : {}) },
    spec: {},
  }) as unknown as VCDCluster;

describe('load balancer names', () => {
  it('are CAPVCD’s (cluster name, infra ID, port suffix) when taking over, ours otherwise', () => {
    expect(loadBalancerNameOf(cluster({ [ADOPT_CAPVCD_ANNOTATION]: 'NO_RDE_1' }))).toBe('c1-NO_RDE_1-tcp');
    expect(capvcdLoadBalancerName('c1', 'NO_RDE_1')).toBe('c1-NO_RDE_1-tcp');
    expect(loadBalancerNameOf(cluster())).toBe('capvcd-ns-c1-tcp');
    expect(adoptedInfraId(cluster({ [ADOPT_CAPVCD_ANNOTATION]: '  ' }))).toBeUndefined();
  });
});

describe('capvcdVmName', () => {
  it('is the Machine’s name (else the recorded one) when taking over without a template, else ours', () => {
    const name = fc.option(fc.constantFrom('m-1', 'm-2'), { nil: undefined });
    fc.assert(
      fc.property(
        fc.boolean(),
        fc.constantFrom(undefined, '', '{{ .machine.Name }}'),
        name,
        name,
        (adopt, template, machine, recorded) => {
          const c = cluster(adopt ? { [ADOPT_CAPVCD_ANNOTATION]: 'NO_RDE_1' } : undefined);
          const got = capvcdVmName(c, template, machine, recorded);
          expect(got).toBe(adopt && !template ? (machine ?? recorded) : undefined);
        },
      ),
    );
  });
});

describe('CAPVCD’s vApps of a DC-group cluster', () => {
  const CP = 'cluster.x-k8s.io/control-plane-name';
  const MD = 'cluster.x-k8s.io/deployment-name';
  const label = fc.stringMatching(/^[a-z0-9][a-z0-9-]{0,20}$/);

  it('are <cluster>_<VDC UUID>_<pool>, the control plane’s label before the deployment’s', () => {
    fc.assert(
      fc.property(
        fc.uuid(),
        fc.option(label, { nil: undefined }),
        fc.option(label, { nil: undefined }),
        (uuid, cp, md) => {
          const labels = { ...(cp ? { [CP]: cp } : {}), ...(md ? { [MD]: md } : {}) };
          const got = capvcdZoneVAppName('c1', `urn:vcloud:vdc:${uuid}`, labels);
          if (cp ?? md) expect(got).toEqual({ name: `c1_${uuid}_${cp ?? md}` });
          else expect(got).toMatchObject({ error: expect.stringContaining(MD) });
        },
      ),
    );
  });

  it('need a VDC URN as CAPVCD splits it', () => {
    expect(capvcdZoneVAppName('c1', 'vdc-a', { [MD]: 'md' })).toMatchObject({
      error: expect.stringContaining('URN'),
    });
  });

  it('are used only when taking over a DCGroup cluster', () => {
    const dcg = (annotations?: Record<string, string>) =>
      ({
        ...cluster(annotations),
        spec: { multiZoneSpec: { zoneTopology: 'DCGroup' } },
      }) as unknown as VCDCluster;
    expect(takesOverDcGroup(dcg({ [ADOPT_CAPVCD_ANNOTATION]: 'NO_RDE_1' }))).toBe(true);
    expect(takesOverDcGroup(dcg())).toBe(false);
    expect(takesOverDcGroup(cluster({ [ADOPT_CAPVCD_ANNOTATION]: 'NO_RDE_1' }))).toBe(false);
  });
});

describe('clusterHome', () => {
  const zone = fc.record({
    name: fc.constant('z'),
    ovdc: fc.constantFrom('vdc-1', 'vdc-2'),
    ovdcNetworkName: fc.constantFrom('net-1', 'net-2'),
  });
  it('is the spec’s VDC and network, else (a zoned spec naming none, as CAPVCD’s) the first zone’s', () => {
    fc.assert(
      fc.property(
        fc.constantFrom('', 'vdc-s'),
        fc.constantFrom('', 'net-s'),
        fc.array(zone, { maxLength: 3 }),
        (ovdc, ovdcNetwork, zones) => {
          const c = { spec: { ovdc, ovdcNetwork, multiZoneSpec: { zones } } } as unknown as VCDCluster;
          const first = zones[0];
          expect(clusterHome(c)).toEqual(
            ovdc || !first
              ? { ovdc, ovdcNetwork }
              : { ovdc: first.ovdc, ovdcNetwork: ovdcNetwork || first.ovdcNetworkName },
          );
        },
      ),
    );
  });
});
