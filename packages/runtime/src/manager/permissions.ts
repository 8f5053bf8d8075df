import type { Permission } from '../controller/permissions.js';
import type { ManagerOptions } from './manager.js';

/** Recording events: a new event is a create, a repeat of it a patch of its series. */
export const EVENTS_PERMISSION: Permission = {
  group: 'events.k8s.io',
  resource: 'events',
  verbs: ['create', 'patch'],
  why: 'records events',
};

/** What the manager's own parts need with these options: leader election, secure metrics. */
export function managerPermissions(options: ManagerOptions): Permission[] {
  const out: Permission[] = [];
  const le = options.leaderElection;
  if (le) {
    // The elector reads its Lease, renews and releases it by update (both by name), and creates
    // it once (a create cannot be limited to a name).
    const lease = { group: 'coordination.k8s.io', resource: 'leases', namespace: le.namespace };
    const why = 'leader election';
    out.push({ ...lease, verbs: ['get', 'update'], resourceNames: [le.id], why });
    out.push({ ...lease, verbs: ['create'], why });
  }
  if (options.metricsSecure) {
    const why = '--metrics-secure: who scrapes /metrics, and may they';
    out.push({ group: 'authentication.k8s.io', resource: 'tokenreviews', verbs: ['create'], why });
    out.push({ group: 'authorization.k8s.io', resource: 'subjectaccessreviews', verbs: ['create'], why });
  }
  return out;
}
