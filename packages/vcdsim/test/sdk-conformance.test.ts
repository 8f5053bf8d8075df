/**
 * vcdsim against VMware's own Go SDK for Cloud Director (go-vcloud-director, the version pinned in
 * conformance/go.mod): the program in conformance/ drives a vcdsim it is handed through what a
 * Cluster API provider does (logins, lookups, vApp and VM life, ExtraConfig both ways, metadata,
 * the query service, error shapes, CloudAPI policies, networks, edge gateways, ALB objects, IP
 * Space floating IPs, VM affinity rules, a VM's own sizing and disks, and a guest shutdown),
 * once per login kind. Each of its steps is an assertion here, so a failure names the SDK call.
 *
 * The program is built with the machine's Go from the Go module proxy on first use (cached by
 * version and source hash, under a lock; `.ci/run` builds it in setup). Without Go this fails and
 * says what to install.
 */
import { execFile, execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { startVcdSim, type VcdSim } from '../src/index.js';
import { SAMPLE_SEED } from './client.js';

const BUILD = fileURLToPath(new URL('../conformance/build.sh', import.meta.url));

/** The program's steps, in its order (checked against its `-list`). */
const STEPS = [
  'login',
  'session.current',
  'lookup.org',
  'lookup.adminOrg',
  'lookup.vdc',
  'lookup.catalog',
  'lookup.template',
  'lookup.network',
  'cloudapi.computePolicies.v1',
  'cloudapi.computePolicies.v2',
  'vapp.compose',
  'vapp.addOrgNetwork',
  'vm.create.rawRecompose',
  'vm.create.addNewVM',
  'vm.extraConfig.updateExtraConfig',
  'vm.extraConfig.reconfigureVm',
  'vm.hardware.sizing',
  'vm.hardware.internalDiskAdd',
  'vm.hardware.internalDiskDelete',
  'metadata.withoutDomain',
  'metadata.withDomain',
  'vm.powerOn',
  'vm.waitForIp',
  'vm.affinityRule.create',
  'vm.affinityRule.listAndUpdate',
  'vm.affinityRule.delete',
  'disk.create',
  'disk.attach',
  'disk.detach',
  'disk.delete',
  'query.pagingTotals',
  'query.filterOrder',
  'cloudapi.orgVdcNetwork',
  'cloudapi.edgeGateway',
  'cloudapi.serviceEngineGroupAssignments',
  'cloudapi.albPool.create',
  'cloudapi.albVirtualService.create',
  'cloudapi.albVirtualService.delete',
  'cloudapi.albPool.delete',
  'cloudapi.ipSpace.lookup',
  'cloudapi.ipSpace.allocateFloatingIp',
  'cloudapi.ipSpace.floatingIpSuggestions',
  'cloudapi.ipSpace.updateAndRelease',
  'vm.shutdownGuest',
  'vm.powerOff',
  'vm.networkConnection.manualAndDhcp',
  'vm.undeploy',
  'vm.delete',
  'vapp.undeployAndDelete',
  'error.missingEntity',
  'error.wrongPassword',
  'error.bogusToken',
  'logout',
];

const LOGINS = ['password', 'token'] as const;
type Login = (typeof LOGINS)[number];

interface StepResult {
  step: string;
  ok: boolean;
  ms: number;
  detail?: string;
  error?: string;
}

/** Builds (or finds) the program; the script prints progress on stderr and the path on stdout. */
function buildProgram(): string {
  try {
    return execFileSync('bash', [BUILD], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] }).trim();
  } catch (e) {
    throw new Error(
      `building the VCD SDK conformance program failed (${(e as Error).message}): it needs Go 1.22 or newer ` +
        'on PATH and the Go module proxy reachable',
    );
  }
}

/** Runs the program against a fresh vcdsim (HTTPS, its CA handed to the SDK) for one login kind. */
async function runAgainstSim(bin: string, login: Login): Promise<Map<string, StepResult>> {
  const sim: VcdSim = await startVcdSim({ seed: SAMPLE_SEED, taskLatencyMs: 20, bootDelayMs: 100 });
  const dir = mkdtempSync(join(tmpdir(), 'vcdsim-sdk-'));
  const ca = join(dir, 'ca.pem');
  writeFileSync(ca, sim.caPem);
  try {
    const stdout = await new Promise<string>((resolve, reject) => {
      execFile(
        bin,
        ['-url', sim.url, '-ca', ca, '-login', login],
        { maxBuffer: 16 << 20, timeout: 300_000 },
        (err, out, errOut) => {
          // Exit code 1 means "a step failed": the steps say which; anything else is a crash.
          if (err && (err as { code?: unknown }).code !== 1) reject(new Error(`${err.message}\n${errOut}`));
          else resolve(out);
        },
      );
    });
    const results = new Map<string, StepResult>();
    for (const line of stdout.split('\n').filter(Boolean)) {
      const r = JSON.parse(line) as StepResult;
      results.set(r.step, r);
    }
    expect(sim.inspect.errors(), 'handler failures inside vcdsim').toEqual([]);
    return results;
  } finally {
    await sim.stop();
  }
}

describe('vcdsim under VMware go-vcloud-director (conformance/go.mod)', () => {
  let bin: string;
  const runs = new Map<Login, Map<string, StepResult>>();
  beforeAll(async () => {
    bin = buildProgram();
    // Both login kinds at once, each against its own simulator (the query totals are per world).
    const all = await Promise.all(LOGINS.map((login) => runAgainstSim(bin, login)));
    for (const [i, login] of LOGINS.entries()) runs.set(login, all[i]!);
  }, 900_000);

  it('runs exactly the steps this file asserts', () => {
    const listed = execFileSync(bin, ['-list'], { encoding: 'utf8' }).trim().split('\n');
    expect(listed).toEqual(STEPS);
  });

  for (const login of LOGINS)
    describe(`${login} login`, () => {
      for (const step of STEPS)
        it(step, () => {
          const r = runs.get(login)?.get(step);
          expect(r, `the program reported nothing for ${step}`).toBeDefined();
          console.info(`[sdk ${login}] ${step}: ${r?.ok ? 'ok' : 'FAILED'} ${r?.ms} ms ${r?.detail ?? ''}`);
          expect(r?.error ?? '', `${step} (${login} login)`).toBe('');
          expect(r?.ok).toBe(true);
        });
    });
});
