/** kube-scheduler under its own identity, so the bootstrap RBAC of `system:kube-scheduler` applies. */
import { join } from 'node:path';
import { ManagedProcess } from './process.js';

/** The user the scheduler authenticates as (a client certificate with this CN). */
export const schedulerUser = 'system:kube-scheduler';

/** Starts kube-scheduler with `kubeconfigPath` (its own identity), without leader election or serving. */
export function startScheduler(binary: string, workDir: string, kubeconfigPath: string): ManagedProcess {
  return ManagedProcess.start(
    'kube-scheduler',
    binary,
    [`--kubeconfig=${kubeconfigPath}`, '--leader-elect=false', '--secure-port=0', '--v=1'],
    join(workDir, 'kube-scheduler.log'),
  );
}
