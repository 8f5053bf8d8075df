import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { AssetsUnavailableError, resolveTool, type ToolName, toolFolder, tools } from '../src/index.js';

const saved = { helm: process.env.CAPSTAN_HELM_BINARY, path: process.env.PATH };
afterEach(() => {
  if (saved.helm === undefined) delete process.env.CAPSTAN_HELM_BINARY;
  else process.env.CAPSTAN_HELM_BINARY = saved.helm;
  process.env.PATH = saved.path;
});

const script = (path: string) => {
  mkdirSync(join(path, '..'), { recursive: true });
  writeFileSync(path, '#!/bin/sh\n', { mode: 0o755 });
  return path;
};

describe('resolveTool', () => {
  it('takes a prebuilt binary from its variable, and refuses one that is not executable', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tools-'));
    process.env.CAPSTAN_HELM_BINARY = join(dir, 'nope');
    await expect(resolveTool('helm', { cacheRoot: dir })).rejects.toThrow(
      /CAPSTAN_HELM_BINARY=.*nope is not an executable/,
    );
    process.env.CAPSTAN_HELM_BINARY = script(join(dir, 'my-helm'));
    expect(await resolveTool('helm', { cacheRoot: dir })).toBe(join(dir, 'my-helm'));
  });

  it('answers the cached binary, by version, without building', async () => {
    delete process.env.CAPSTAN_HELM_BINARY;
    process.env.PATH = '/nonexistent'; // no Go: a build would fail
    const cacheRoot = mkdtempSync(join(tmpdir(), 'cache-'));
    const cached = script(join(cacheRoot, 'tools', `helm-${tools.helm.version}`, 'helm'));
    expect(await resolveTool('helm', { cacheRoot, onProgress: () => {} })).toBe(cached);
  });

  it('waits for another process building the same tool, then uses what it built', async () => {
    delete process.env.CAPSTAN_HELM_BINARY;
    process.env.PATH = '/nonexistent';
    const cacheRoot = mkdtempSync(join(tmpdir(), 'cache-'));
    const dir = join(cacheRoot, 'tools', `helm-${tools.helm.version}`);
    mkdirSync(join(dir, '..'), { recursive: true });
    writeFileSync(`${dir}.lock`, String(process.pid)); // a live holder: this very process
    const progress: string[] = [];
    const resolved = resolveTool('helm', { cacheRoot, onProgress: (line) => progress.push(line) });
    await new Promise((r) => setTimeout(r, 100));
    script(join(dir, 'helm'));
    rmSync(`${dir}.lock`);
    expect(await resolved).toBe(join(dir, 'helm'));
    expect(progress).toEqual([`helm: waiting for process ${process.pid}, which is building into ${dir}`]);
  });

  it('fails with what to install when nothing is cached and Go is missing', async () => {
    delete process.env.CAPSTAN_HELM_BINARY;
    process.env.PATH = '/nonexistent';
    const cacheRoot = mkdtempSync(join(tmpdir(), 'cache-'));
    const error = await resolveTool('kustomize', { cacheRoot, onProgress: () => {} }).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(AssetsUnavailableError);
    expect((error as Error).message).toMatch(
      /kustomize v5\.8\.2 is not cached and Go is not on PATH.*Install Go.*or set CAPSTAN_KUSTOMIZE_BINARY/s,
    );
  });
});

describe('the monitoring tools', () => {
  it('build Prometheus without its service discoveries, and cache each recipe apart', () => {
    expect(tools.prometheus.buildFlags).toContain('-tags=remove_all_sd');
    expect(toolFolder('prometheus')).toMatch(/^prometheus-v0\.316\.0-[0-9a-f]{8}$/);
    expect(toolFolder('alertmanager')).toMatch(/^alertmanager-v0\.35\.0-[0-9a-f]{8}$/);
    expect(toolFolder('helm')).toBe(`helm-${tools.helm.version}`);
    expect(toolFolder('ipam-in-cluster')).toMatch(/^ipam-in-cluster-v1\.1\.0-[0-9a-f]{8}$/);
  });

  it('fail with what to install when nothing is cached and Go is missing (never skip)', async () => {
    process.env.PATH = '/nonexistent';
    const cacheRoot = mkdtempSync(join(tmpdir(), 'cache-'));
    for (const [name, variable] of [
      ['prometheus', 'CAPSTAN_PROMETHEUS_BINARY'],
      ['alertmanager', 'CAPSTAN_ALERTMANAGER_BINARY'],
      ['ipam-in-cluster', 'CAPSTAN_IPAM_IN_CLUSTER_BINARY'],
    ] as const) {
      delete process.env[variable];
      const error = await resolveTool(name, { cacheRoot, onProgress: () => {} }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(AssetsUnavailableError);
      expect((error as Error).message).toMatch(
        new RegExp(`${name} v[0-9.]+ is not cached.*Install Go.*${variable}`, 's'),
      );
    }
  });
});

describe('capstan-envtest tools', () => {
  it('prints each tool with its path, from the cache, through the committed launcher', async () => {
    const cacheRoot = mkdtempSync(join(tmpdir(), 'cache-'));
    const paths = (Object.keys(tools) as ToolName[]).map((name) =>
      script(join(cacheRoot, 'tools', toolFolder(name), name)),
    );
    const launcher = fileURLToPath(new URL('../bin/capstan-envtest.js', import.meta.url));
    const { stdout } = await promisify(execFile)(process.execPath, [launcher, 'tools'], {
      env: { ...process.env, CAPSTAN_ENVTEST_CACHE: cacheRoot, PATH: '/nonexistent' },
    });
    expect(stdout.trim().split('\n')).toEqual(
      Object.keys(tools).map((name, i) => `${name.padEnd(10)} ${paths[i]}`),
    );
  });
});
