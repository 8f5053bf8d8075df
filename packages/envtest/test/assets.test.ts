import { existsSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { acquireFileLock } from '../src/file-lock.js';
import { AssetsUnavailableError, resolveAssets } from '../src/index.js';

const saved = {
  assets: process.env.KUBEBUILDER_ASSETS,
  path: process.env.PATH,
  kwok: process.env.CAPSTAN_KWOK_BINARY,
};
afterEach(() => {
  if (saved.assets === undefined) delete process.env.KUBEBUILDER_ASSETS;
  else process.env.KUBEBUILDER_ASSETS = saved.assets;
  if (saved.kwok === undefined) delete process.env.CAPSTAN_KWOK_BINARY;
  else process.env.CAPSTAN_KWOK_BINARY = saved.kwok;
  process.env.PATH = saved.path;
});

const script = (dir: string, name: string) => {
  const path = join(dir, name);
  writeFileSync(path, '#!/bin/sh\n', { mode: 0o755 });
  return path;
};

describe('resolveAssets', () => {
  it('honours KUBEBUILDER_ASSETS and says what is missing there', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'assets-'));
    process.env.KUBEBUILDER_ASSETS = dir;
    await expect(resolveAssets()).rejects.toThrow(/kube-apiserver and .*etcd/);

    for (const name of ['kube-apiserver', 'etcd'])
      writeFileSync(join(dir, name), '#!/bin/sh\n', { mode: 0o755 });
    const assets = await resolveAssets();
    expect(assets.dir).toBe(dir);
    expect(assets.kubeControllerManager).toBeUndefined();
  });

  it('takes a prebuilt binary from its CAPSTAN_*_BINARY variable, and still gets its data files from the module', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'assets-'));
    for (const name of ['kube-apiserver', 'etcd', 'kube-scheduler']) script(dir, name);
    process.env.KUBEBUILDER_ASSETS = dir;
    process.env.CAPSTAN_KWOK_BINARY = join(dir, 'not-there');
    await expect(resolveAssets({ with: ['kwok'] })).rejects.toThrow(
      /CAPSTAN_KWOK_BINARY=.*not-there is not an executable/,
    );

    process.env.CAPSTAN_KWOK_BINARY = script(dir, 'my-kwok');
    const cacheRoot = mkdtempSync(join(tmpdir(), 'cache-'));
    const assets = await resolveAssets({ with: ['kwok'], cacheRoot, onProgress: () => {} });
    expect(assets.kubeScheduler).toBe(join(dir, 'kube-scheduler'));
    expect(assets.kwok?.binary).toBe(join(dir, 'my-kwok'));
    // The stage files come from the kwok module itself (go mod download), not from a build.
    expect(existsSync(join(assets.kwok?.stagesDir as string, 'node/fast/node-initialize.yaml'))).toBe(true);
    expect(existsSync(join(assets.kwok?.stagesDir as string, '..', 'kwok'))).toBe(false); // nothing was built
  });

  it('fails with what to install when nothing is cached and Go is missing', async () => {
    delete process.env.KUBEBUILDER_ASSETS;
    process.env.PATH = '/nonexistent';
    const cacheRoot = mkdtempSync(join(tmpdir(), 'cache-'));
    const error = await resolveAssets({ cacheRoot, onProgress: () => {} }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AssetsUnavailableError);
    expect((error as Error).message).toMatch(/Install Go.*or set KUBEBUILDER_ASSETS/s);
  });
});

describe('acquireFileLock', () => {
  it('serialises holders and takes over a lock whose holder died', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'lock-'));
    const path = join(dir, 'build.lock');
    const order: string[] = [];
    const releaseA = await acquireFileLock(path);
    const waitedFor: number[] = [];
    const b = acquireFileLock(path, (pid) => waitedFor.push(pid), 10).then((release) => {
      order.push('b');
      release();
    });
    await new Promise((r) => setTimeout(r, 50));
    order.push('a');
    releaseA();
    await b;
    expect(order).toEqual(['a', 'b']);
    expect(waitedFor).toEqual([process.pid]);

    mkdirSync(dir, { recursive: true });
    writeFileSync(path, '999999999'); // no such process
    const release = await acquireFileLock(path, undefined, 10);
    release();
  });
});
