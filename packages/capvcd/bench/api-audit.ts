/**
 * The scale row's API server requests by who sent them (`BENCH_CAPVCD_AUDIT`): kube-apiserver
 * writes an audit log of capvcd's ServiceAccount's requests, and of anyone's writes of Machines
 * (Cluster API's status patches, which capvcd's own VCDMachine status patches set off); the row
 * tallies them between two marks (workers created, all Running, all deleted) by verb, resource
 * and answer code. Watches are left out: they are long-lived, not per reconcile. capvcd's
 * VCDMachine status patches are logged with their bodies, to see what each one changed.
 */
import { mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** capvcd's ServiceAccount, as the bench's process runs. */
const CAPVCD_USER = 'system:serviceaccount:capvcd-system:capstan-capvcd';

const POLICY = `apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: [RequestReceived, ResponseStarted]
rules:
  - level: Request
    users: ["${CAPVCD_USER}"]
    verbs: [patch]
    resources: [{ group: infrastructure.cluster.x-k8s.io, resources: [vcdmachines/status] }]
  - level: Metadata
    users: ["${CAPVCD_USER}"]
  - level: Metadata
    verbs: [patch, update]
    resources: [{ group: cluster.x-k8s.io, resources: [machines, machines/status] }]
  - level: None
`;

interface AuditEvent {
  verb: string;
  user?: { username?: string };
  objectRef?: { resource?: string; subresource?: string };
  responseStatus?: { code?: number };
}

/** The audit log of one API server, read between marks. */
export class ApiAudit {
  readonly flags: string[];
  private readonly path: string;

  constructor() {
    const dir = mkdtempSync(join(tmpdir(), 'capvcd-audit-'));
    const policy = join(dir, 'policy.yaml');
    writeFileSync(policy, POLICY);
    this.path = join(dir, 'audit.log');
    process.stderr.write(`API audit log: ${this.path}\n`);
    this.flags = [
      `--audit-policy-file=${policy}`,
      `--audit-log-path=${this.path}`,
      '--audit-log-format=json',
      '--audit-log-maxsize=0',
      '--audit-log-mode=blocking',
    ];
  }

  /** Where the log ends now: a mark to tally from or to. */
  mark(): number {
    try {
      return statSync(this.path).size;
    } catch {
      return 0;
    }
  }

  /** Requests between two marks, by `who verb resource[/subresource] code`, watches left out. */
  tally(from: number, to: number): Record<string, number> {
    const text = readFileSync(this.path).subarray(from, to).toString('utf8');
    const counts: Record<string, number> = {};
    for (const line of text.split('\n')) {
      if (!line) continue;
      const e = JSON.parse(line) as AuditEvent;
      if (e.verb === 'watch') continue;
      const who = e.user?.username === CAPVCD_USER ? 'capvcd' : 'other';
      const r = e.objectRef;
      const what = `${r?.resource ?? '?'}${r?.subresource ? `/${r.subresource}` : ''}`;
      const key = `${who} ${e.verb} ${what} ${e.responseStatus?.code ?? '?'}`;
      counts[key] = (counts[key] ?? 0) + 1;
    }
    return counts;
  }
}

/** One line of a tally, per machine, largest first: `capvcd get secrets 200: 16.1`. */
export function perMachine(counts: Record<string, number>, machines: number): string {
  return Object.entries(counts)
    .sort((a, b) => b[1] - a[1])
    .map(([key, n]) => `${key}: ${(n / machines).toFixed(1)}`)
    .join(', ');
}
