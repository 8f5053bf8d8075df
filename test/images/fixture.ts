/**
 * One operator image under test: built (cached) before its file's tests, then started as its
 * manifest's workload against an envtest apiserver, with a kubeconfig mounted read-only at the
 * path KUBECONFIG names, as a Secret volume would carry it.
 */
import { freePorts } from '@capstan/envtest';
import { eventually } from '@capstan/runtime/testing';
import { buildImage, Container, readableCopy, type Workload } from './podman.js';
import type { RunContext } from './run-args.js';

/** Where the kubeconfig is mounted in the container. */
const KUBECONFIG = '/etc/capstan/kubeconfig';

/**
 * The operator's image, its Dockerfile and its workload: a manifest file (from the repository
 * root) or a workload rendered by kustomize or Helm.
 */
export interface ImageUnderTest {
  tag: string;
  dockerfile: string;
  manifest: string | Workload;
}

/** Seconds each image took to build in this process (cached layers make the later ones quick). */
export const buildSeconds = new Map<string, number>();

/** Builds the image (cached by podman) once per test file. */
export async function build(image: ImageUnderTest): Promise<void> {
  if (!buildSeconds.has(image.tag))
    buildSeconds.set(image.tag, await buildImage(image.dockerfile, image.tag));
}

/** What a test gives in place of the cluster for one container. */
export interface StartOptions extends Pick<RunContext, 'hostPaths' | 'mounts' | 'env' | 'hostPidNamespace'> {
  /** The kubeconfig (YAML) the container uses. */
  kubeconfig: string;
  /** Downward-API values by field path. */
  fields: Record<string, string>;
}

/** A started container; `stop` sends SIGTERM and removes the files it was given. */
export interface Started {
  container: Container;
  stop(): Promise<number | null>;
}

/** Starts the image as its manifest says and waits for `/readyz` 200. */
export async function start(image: ImageUnderTest, options: StartOptions): Promise<Started> {
  const kubeconfig = readableCopy(options.kubeconfig, 'kubeconfig');
  const [metrics, probes, webhook] = (await freePorts(3)) as [number, number, number];
  const container = Container.run(image.tag, image.manifest, {
    fields: options.fields,
    ports: { metrics, probes, webhook },
    hostPaths: options.hostPaths,
    ...(options.hostPidNamespace ? { hostPidNamespace: options.hostPidNamespace } : {}),
    env: { KUBECONFIG, ...options.env },
    mounts: [{ host: kubeconfig.path, container: KUBECONFIG }, ...(options.mounts ?? [])],
  });
  const stop = async () => {
    const code = await container.stop();
    kubeconfig.remove();
    return code;
  };
  try {
    await ready(container);
  } catch (err) {
    await stop();
    throw err;
  }
  return { container, stop };
}

/** Waits for `/readyz` 200 (60 s), failing at once with the logs if the container exits first. */
async function ready(container: Container): Promise<void> {
  const exited = container.exited.then((code) => {
    throw new Error(`${container.name} exited ${code} before /readyz 200:\n${container.logs()}`);
  });
  exited.catch(() => {});
  const probe = eventually(async () => (await container.get('probes', '/readyz')).status === 200, {
    what: `${container.name} /readyz 200`,
    timeoutMs: 60_000,
    intervalMs: 250,
    details: () => container.logs(),
  });
  await Promise.race([probe, exited]);
}
