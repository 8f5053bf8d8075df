/** What the alert rules may name: the metrics the operators really export, and the runbooks there are. */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { root } from '../packaging/packages.js';

/** The metric names the coordinator's and the agent's metrics.ts declare. */
export function exported(): string[] {
  return ['packages/coordinator/src/metrics.ts', 'packages/agent/src/metrics.ts'].flatMap((file) =>
    [...readFileSync(join(root, file), 'utf8').matchAll(/name: '(capstan_[a-z_]+)'/g)].map(
      (m) => m[1] as string,
    ),
  );
}

/** The runbook pages in docs/runbooks/. */
export const runbooks = (): string[] => readdirSync(join(root, 'docs/runbooks'));
