/**
 * runArgs, the pod spec → `podman run` translation the image tests start containers with: on
 * generated specs (properties), and on every operator's own manifest.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { workloadOf } from './podman.js';
import { type PodSpec, runArgs, type SecurityContext } from './run-args.js';

const context = {
  fields: { 'metadata.namespace': 'ns', 'spec.nodeName': 'n1' },
  ports: { metrics: 1, probes: 2 },
};

const security = fc.record(
  {
    runAsUser: fc.integer({ min: 0, max: 70_000 }),
    runAsGroup: fc.integer({ min: 0, max: 70_000 }),
    readOnlyRootFilesystem: fc.boolean(),
    allowPrivilegeEscalation: fc.boolean(),
    capabilities: fc.record({ drop: fc.subarray(['ALL', 'NET_RAW', 'CHOWN']) }),
  },
  { requiredKeys: [] },
) as fc.Arbitrary<SecurityContext>;
const flagArg = fc.oneof(
  fc.constantFrom('--metrics-bind-address=:8080', '--health-probe-bind-address=:8081', '--leader-elect'),
  fc.stringMatching(/^--[a-z-]{1,12}=[a-z0-9:]{0,8}$/),
);

describe('runArgs', () => {
  it('maps the securityContext to flags, the container over the pod, the image user last', () => {
    fc.assert(
      fc.property(
        security,
        security,
        fc.array(flagArg),
        fc.integer({ min: 1, max: 70_000 }),
        (pod, own, args, imageUid) => {
          const spec: PodSpec = {
            securityContext: pod,
            containers: [{ name: 'c', image: 'i', args, securityContext: own }],
          };
          const merged = { ...pod, ...own };
          const { flags, args: out } = runArgs(spec, spec.containers[0]!, {
            ...context,
            imageUser: `${imageUid}:${imageUid}`,
          });
          const uid = merged.runAsUser ?? imageUid;
          const gid = merged.runAsGroup ?? imageUid;
          expect(flags).toContain(`--user=${uid}:${gid}`);
          expect(flags.includes('--read-only')).toBe(merged.readOnlyRootFilesystem === true);
          expect(flags.includes('--read-only-tmpfs=false')).toBe(merged.readOnlyRootFilesystem === true);
          expect(flags.includes('--security-opt=no-new-privileges')).toBe(
            merged.allowPrivilegeEscalation === false,
          );
          expect(flags.filter((f) => f.startsWith('--cap-drop='))).toEqual(
            (merged.capabilities?.drop ?? []).map((c) => `--cap-drop=${c}`),
          );
          // Same args in the same order; only the two bind addresses move to the given loopback ports.
          expect(out).toHaveLength(args.length);
          out.forEach((arg, i) => {
            if (args[i]?.startsWith('--metrics-bind-address='))
              expect(arg).toBe('--metrics-bind-address=127.0.0.1:1');
            else if (args[i]?.startsWith('--health-probe-bind-address='))
              expect(arg).toBe('--health-probe-bind-address=127.0.0.1:2');
            else expect(arg).toBe(args[i]);
          });
        },
      ),
    );
  });

  it('property: added capabilities, SELinux and AppArmor options and hostPID map onto podman flags', () => {
    fc.assert(
      fc.property(
        fc.subarray(['SYS_ADMIN', 'SYS_CHROOT', 'SYS_PTRACE', 'KILL']),
        fc.option(fc.constantFrom('spc_t', 'container_t'), { nil: undefined }),
        fc.option(
          fc.constantFrom('RuntimeDefault', 'Unconfined', 'Localhost') as fc.Arbitrary<'Unconfined'>,
          {
            nil: undefined,
          },
        ),
        fc.boolean(),
        fc.option(fc.constant('/proc/42/ns/pid'), { nil: undefined }),
        (add, selinux, apparmor, hostPID, standIn) => {
          const own: SecurityContext = {
            capabilities: { add },
            ...(selinux ? { seLinuxOptions: { type: selinux } } : {}),
            ...(apparmor ? { appArmorProfile: { type: apparmor, localhostProfile: 'capstan' } } : {}),
          };
          const spec: PodSpec = { hostPID, containers: [{ name: 'c', image: 'i', securityContext: own }] };
          const { flags } = runArgs(spec, spec.containers[0]!, {
            ...context,
            imageUser: '0:0',
            ...(standIn ? { hostPidNamespace: standIn } : {}),
          });
          expect(flags.filter((f) => f.startsWith('--cap-add='))).toEqual(add.map((c) => `--cap-add=${c}`));
          expect(flags.filter((f) => f.startsWith('--security-opt=label='))).toEqual(
            selinux ? [`--security-opt=label=type:${selinux}`] : [],
          );
          const wantArmor = { Unconfined: 'unconfined', Localhost: 'capstan', RuntimeDefault: undefined };
          const armor = apparmor ? wantArmor[apparmor as keyof typeof wantArmor] : undefined;
          expect(flags.filter((f) => f.startsWith('--security-opt=apparmor='))).toEqual(
            armor ? [`--security-opt=apparmor=${armor}`] : [],
          );
          const pid = hostPID ? [`--pid=${standIn ? `ns:${standIn}` : 'host'}`] : [];
          expect(flags.filter((f) => f.startsWith('--pid='))).toEqual(pid);
        },
      ),
    );
  });

  it('refuses runAsNonRoot with uid 0, as a kubelet does', () => {
    const spec: PodSpec = {
      securityContext: { runAsNonRoot: true },
      containers: [{ name: 'c', image: 'i' }],
    };
    expect(() => runArgs(spec, spec.containers[0]!, { ...context, imageUser: '0:0' })).toThrow(
      /runAsNonRoot/,
    );
    expect(runArgs(spec, spec.containers[0]!, { ...context, imageUser: '65532:65532' }).flags).toContain(
      '--user=65532:65532',
    );
  });

  it('names a downward-API field or volume the test did not supply', () => {
    const spec: PodSpec = {
      containers: [
        {
          name: 'c',
          image: 'i',
          env: [{ name: 'X', valueFrom: { fieldRef: { fieldPath: 'status.podIP' } } }],
        },
      ],
    };
    expect(() => runArgs(spec, spec.containers[0]!, { ...context, imageUser: '1:1' })).toThrow(
      /X needs field status.podIP/,
    );
    const vol: PodSpec = {
      containers: [{ name: 'c', image: 'i', volumeMounts: [{ name: 'v', mountPath: '/v' }] }],
      volumes: [{ name: 'v' }],
    };
    expect(() => runArgs(vol, vol.containers[0]!, { ...context, imageUser: '1:1' })).toThrow(
      /volume v is not a hostPath/,
    );
  });

  it.each([
    ['packages/agent/deploy/daemonset.yaml', '0:0'],
    ['packages/coordinator/deploy/coordinator.yaml', '65532:65532'],
    ['packages/version-operator/deploy/operator.yaml', '65532:65532'],
    ['packages/capvcd/deploy/manager.yaml', '65532:65532'],
    ['examples/greeting/deploy/controller.yaml', '65532:65532'],
  ])('runs %s read-only, as %s, without privilege escalation', (manifest, user) => {
    const { pod, container } = workloadOf(manifest);
    // capvcd's conversion webhook certificate: a Secret in the cluster, a folder here.
    const hostPaths = { 'webhook-cert': '/tmp/webhook-cert' };
    const { flags } = runArgs(pod, container, { ...context, hostPaths, imageUser: user });
    expect(flags).toEqual(
      expect.arrayContaining([`--user=${user}`, '--read-only', '--security-opt=no-new-privileges']),
    );
  });
});
