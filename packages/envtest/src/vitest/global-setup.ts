import type { TestProject } from 'vitest/node';
import { ControlPlane, type ControlPlaneInfo } from '../control-plane.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Connection info of the control plane shared by one test run. */
    capstanEnvtest: ControlPlaneInfo;
  }
}

/**
 * Vitest global setup: one real control plane per test run, shared by every test file (each file
 * gets its own namespace through `useControlPlane()`). kube-controller-manager runs the garbage
 * collector, namespace, disruption, deployment and replica set controllers. If the binaries
 * cannot be had, the run fails with a message saying what to install or set.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const started = Date.now();
  const plane = await ControlPlane.start({
    controllers: ['garbagecollector', 'namespace', 'disruption', 'deployment', 'replicaset'],
  });
  process.stderr.write(
    `[envtest] control plane at ${plane.server} ready in ${Date.now() - started} ms (kubeconfig ${plane.kubeconfigPath})\n`,
  );
  project.provide('capstanEnvtest', plane.info);
  return () => plane.stop();
}
