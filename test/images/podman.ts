/**
 * The operators' images for tests: the stand-in base images (scripts/images/base-images.sh), each
 * image built from its unchanged Dockerfile with `podman --runtime runc build`, and containers run
 * on the host's network as a pod spec from the operator's manifest says (run-args.ts).
 *
 * How the build stage reaches the npm registry, and the lock and cache: scripts/images/build-image.sh.
 */
import { type ChildProcess, execFileSync, spawn, spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readManifests } from '@capstan/envtest';
import { root } from '../packaging/packages.js';
import { type ContainerSpec, type PodSpec, type RunContext, runArgs } from './run-args.js';

/** What to tell someone whose machine cannot build or run the images. */
export const PODMAN_MISSING =
  'podman and runc are needed to build and run the operator images: apt-get install podman runc debootstrap (as .ci/run does)';

/** `podman` with the runtime and rlimits this machine kind needs (see toolchain.md, "Containers"). */
const PODMAN = ['--runtime', 'runc'];
const ULIMITS = ['--ulimit', 'nofile=1024:1024', '--ulimit', 'nproc=1024:1024'];

/** The image an operator's manifest names, as `ghcr.io/capstan-dev/<name>:<version>`. */
export function imageName(name: string, version = '0.1.0'): string {
  return `ghcr.io/capstan-dev/${name}:${version}`;
}

/** Fails, naming what to install, when podman, runc or debootstrap is not on `path`, or not root. */
export function requirePodman(path = process.env.PATH ?? ''): void {
  for (const tool of ['podman', 'runc', 'debootstrap']) {
    if (spawnSync('/bin/sh', ['-c', `command -v ${tool}`], { env: { PATH: path } }).status !== 0) {
      throw new Error(`${tool} was not found. ${PODMAN_MISSING}`);
    }
  }
  if (process.getuid?.() !== 0) throw new Error('the image tests run podman as root: run them as root');
}

/**
 * Builds `dockerfile` (from the repository root) as `tag` with scripts/images/build-image.sh;
 * returns the seconds it took. Layers are cached by podman: the five Dockerfiles share their
 * build stage, so it runs once per source tree.
 */
export async function buildImage(dockerfile: string, tag: string): Promise<number> {
  requirePodman();
  const started = Date.now();
  const result = await run(join(root, 'scripts', 'images', 'build-image.sh'), [dockerfile, tag]);
  if (result.code !== 0) {
    throw new Error(`podman build -f ${dockerfile} failed (${result.code}):\n${result.output.slice(-4000)}`);
  }
  return (Date.now() - started) / 1000;
}

/** Runs a command to its end without blocking the event loop; resolves with its code and output. */
function run(command: string, args: string[]): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    const keep = (d: Buffer) => {
      output = (output + d.toString()).slice(-64_000);
    };
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, output }));
  });
}

/** An image's USER as `uid:gid` (`0:0` when unset or not numeric, as a kubelet would refuse it). */
export function imageUser(tag: string): string {
  const user = execFileSync('podman', ['image', 'inspect', '--format', '{{.Config.User}}', tag], {
    encoding: 'utf8',
  }).trim();
  const numeric = /^\d+(:\d+)?$/.test(user) ? user : '0:0';
  return numeric.includes(':') ? numeric : `${numeric}:${numeric}`;
}

/** A workload's pod spec and the container under test. */
export interface Workload {
  pod: PodSpec;
  container: ContainerSpec;
}

/** The pod spec and the first container of the Deployment or DaemonSet among manifest objects. */
export function workloadIn(objects: ReadonlyArray<{ kind?: string }>, what: string): Workload {
  const workload = objects.find((o) => o.kind === 'Deployment' || o.kind === 'DaemonSet') as unknown as
    | { spec: { template: { spec: PodSpec } } }
    | undefined;
  if (!workload) throw new Error(`${what} has no Deployment or DaemonSet`);
  const pod = workload.spec.template.spec;
  return { pod, container: pod.containers[0] as ContainerSpec };
}

/** The pod spec and the first container of the Deployment or DaemonSet in a manifest file. */
export function workloadOf(manifest: string): Workload {
  return workloadIn(readManifests(join(root, manifest)), manifest);
}

/** A file the container reads (a kubeconfig, a CA): a copy any uid may read, in its own folder. */
export function readableCopy(text: string, name: string): { path: string; remove: () => void } {
  const dir = mkdtempSync(join(tmpdir(), 'capstan-image-file-'));
  chmodSync(dir, 0o755);
  const path = join(dir, name);
  writeFileSync(path, text, { mode: 0o644 });
  return { path, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/** A running container; its output is kept to explain a failure. */
export class Container {
  private output = '';
  readonly exited: Promise<number | null>;

  private constructor(
    readonly name: string,
    child: ChildProcess,
    readonly ports: RunContext['ports'],
  ) {
    const keep = (d: Buffer) => {
      this.output = (this.output + d.toString()).slice(-20_000);
    };
    child.stdout?.on('data', keep);
    child.stderr?.on('data', keep);
    this.exited = new Promise((resolve) => child.once('exit', (code) => resolve(code)));
  }

  /**
   * Starts `tag` as the workload says (a manifest file's, or one rendered by kustomize or Helm),
   * with the test's stand-ins for the cluster.
   */
  static run(tag: string, manifest: string | Workload, context: Omit<RunContext, 'imageUser'>): Container {
    const { pod, container } = typeof manifest === 'string' ? workloadOf(manifest) : manifest;
    const { flags, args } = runArgs(pod, container, { ...context, imageUser: imageUser(tag) });
    const name = `capstan-test-${container.name}-${process.pid}-${Math.random().toString(36).slice(2, 8)}`;
    const child = spawn(
      'podman',
      [...PODMAN, 'run', '--rm', `--name=${name}`, '--network=host', ...ULIMITS, ...flags, tag, ...args],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    const running = new Container(name, child, context.ports);
    // A test run that ends without stop() leaves no container behind.
    const remove = () => spawnSync('podman', ['rm', '--force', '--time=0', name], { stdio: 'ignore' });
    process.once('exit', remove);
    void running.exited.then(() => process.off('exit', remove));
    return running;
  }

  /** The last of what it printed. */
  logs(): string {
    return this.output.slice(-4000);
  }

  /** GET on one of its loopback servers. */
  async get(port: 'metrics' | 'probes', path: string): Promise<{ status: number; body: string }> {
    try {
      const res = await fetch(`http://127.0.0.1:${this.ports[port]}${path}`);
      return { status: res.status, body: await res.text() };
    } catch (err) {
      return { status: 0, body: String(err) };
    }
  }

  /** SIGTERM, as a kubelet stops it; resolves with its exit code. */
  async stop(): Promise<number | null> {
    await run('podman', [...PODMAN, 'stop', '--time=20', this.name]);
    return this.exited;
  }
}
