/**
 * The runtime's kubeconfig against the real kube-apiserver: who the server says we are
 * (SelfSubjectReview) with a client certificate, a bearer token, a token file (rotated), and an
 * exec plugin (a real executable, served through the lazy client-node path). And, in a child
 * process whose module loader refuses `@kubernetes/client-node`, that a certificate or token
 * kubeconfig loads and makes requests without it, while the exec kubeconfig needs it.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { useControlPlane } from '@capstan/envtest/vitest';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defineResource } from '../../src/api/types.js';
import { ServiceAccount } from '../../src/client/builtin.js';
import { loadKubeConfig } from '../../src/kubeconfig/kubeconfig.js';
import type { ClusterAccess } from '../../src/kubeconfig/kubeconfig-types.js';
import { HttpTransport } from '../../src/transport/http-transport.js';

const env = useControlPlane('kubeconfig');
const here = dirname(fileURLToPath(import.meta.url));
const repo = join(here, '..', '..', '..', '..');

const SelfSubjectReview = defineResource({
  group: 'authentication.k8s.io',
  version: 'v1',
  kind: 'SelfSubjectReview',
  plural: 'selfsubjectreviews',
  namespaced: false,
});

let dir: string;
let admin: HttpTransport;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'capstan-kubeconfig-envtest-'));
  admin = new HttpTransport(env.kubeConfig);
});
afterAll(() => {
  admin.close();
  rmSync(dir, { recursive: true, force: true });
});

/** The user name the API server authenticates `kubeConfig`'s requests as. */
async function whoAmI(kubeConfig: ClusterAccess): Promise<string> {
  const transport = new HttpTransport(kubeConfig);
  try {
    const review = (await transport.create(SelfSubjectReview, {
      apiVersion: 'authentication.k8s.io/v1',
      kind: 'SelfSubjectReview',
      metadata: {},
    })) as { status?: { userInfo?: { username?: string } } };
    return review.status?.userInfo?.username ?? '';
  } finally {
    transport.close();
  }
}

/** A service account of the test namespace and a fresh token for it (TokenRequest). */
async function serviceAccountToken(name: string): Promise<string> {
  await admin.create(ServiceAccount, { metadata: { name, namespace: env.namespace } }).catch(() => {});
  const request = (await admin.createSubresource(
    ServiceAccount,
    { namespace: env.namespace, name },
    'token',
    {
      apiVersion: 'authentication.k8s.io/v1',
      kind: 'TokenRequest',
      spec: { expirationSeconds: 3600 },
    },
  )) as { status: { token: string } };
  return request.status.token;
}

const saUser = (name: string) => `system:serviceaccount:${env.namespace}:${name}`;

/** Writes `folder/config`: the envtest cluster (its CA inline) and one user with `user` fields. */
function kubeconfigFile(folder: string, user: Record<string, unknown>): string {
  const cluster = env.kubeConfig.getCurrentCluster();
  if (!cluster?.caData) throw new Error('the envtest admin kubeconfig has no inline CA');
  const path = join(dir, folder, 'config');
  mkdirSync(dirname(path), { recursive: true });
  const doc = {
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [
      { name: 'envtest', cluster: { server: cluster.server, 'certificate-authority-data': cluster.caData } },
    ],
    users: [{ name: 'me', user }],
    contexts: [{ name: 'envtest', context: { cluster: 'envtest', user: 'me', namespace: env.namespace } }],
    'current-context': 'envtest',
  };
  writeFileSync(path, JSON.stringify(doc), { mode: 0o600 });
  return path;
}

/** Writes `folder/cred.sh`, an exec plugin that prints an ExecCredential holding `token`. */
function execPlugin(folder: string, token: string): void {
  const credential = {
    apiVersion: 'client.authentication.k8s.io/v1',
    kind: 'ExecCredential',
    status: { token },
  };
  const path = join(dir, folder, 'cred.sh');
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, `#!/bin/sh\ncat <<'EOF'\n${JSON.stringify(credential)}\nEOF\n`);
  chmodSync(path, 0o755);
}

const exec = {
  apiVersion: 'client.authentication.k8s.io/v1',
  command: './cred.sh',
  interactiveMode: 'Never',
};

describe('loadKubeConfig against the real API server', () => {
  it('authenticates with a client certificate', async () => {
    const identity = await env.plane.userKubeConfig('kubeconfig-cert-user', ['kubeconfig-testers']);
    expect(await whoAmI(loadKubeConfig({ kubeconfig: identity.path }))).toBe('kubeconfig-cert-user');
  });

  it('authenticates with a bearer token', async () => {
    const path = kubeconfigFile('token', { token: await serviceAccountToken('kc-token') });
    const kc = loadKubeConfig({ kubeconfig: path });
    expect(kc.getContextObject(kc.getCurrentContext())?.namespace).toBe(env.namespace);
    expect(await whoAmI(kc)).toBe(saUser('kc-token'));
  });

  it('authenticates with a token file, relative to the kubeconfig, and follows its rotation', async () => {
    const path = kubeconfigFile('token-file', { tokenFile: 'token' });
    writeFileSync(join(dir, 'token-file', 'token'), await serviceAccountToken('kc-file-before'));
    const kc = loadKubeConfig({ kubeconfig: path });
    expect(await whoAmI(kc)).toBe(saUser('kc-file-before'));
    writeFileSync(join(dir, 'token-file', 'token.next'), await serviceAccountToken('kc-file-after'));
    renameSync(join(dir, 'token-file', 'token.next'), join(dir, 'token-file', 'token'));
    expect(await whoAmI(kc)).toBe(saUser('kc-file-after'));
  });

  it('authenticates through an exec plugin (client-node, imported on first use)', async () => {
    execPlugin('exec', await serviceAccountToken('kc-exec'));
    const kc = loadKubeConfig({ kubeconfig: kubeconfigFile('exec', { exec }) });
    expect(await whoAmI(kc)).toBe(saUser('kc-exec'));
  });
});

describe('a process that refuses to load client-node', () => {
  let bundle: string;
  beforeAll(async () => {
    // The runtime's source, bundled with every package left to Node's resolution, so that an
    // import of client-node (even the lazy one) goes through the loader hook below.
    const out = join(repo, 'node_modules', '.cache', `capstan-kubeconfig-${process.pid}`);
    mkdirSync(out, { recursive: true });
    bundle = join(out, 'who-am-i.mjs');
    await build({
      stdin: {
        contents: [
          // The whole root, as an operator's main imports it.
          `import { loadKubeConfig } from './src/index.ts';`,
          `import { HttpTransport, defineResource } from './src/client/index.ts';`,
          `const type = defineResource(${JSON.stringify(SelfSubjectReview)});`,
          'const transport = new HttpTransport(loadKubeConfig());',
          `const review = await transport.create(type, { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview', metadata: {} });`,
          'transport.close();',
          'console.log(review.status.userInfo.username);',
        ].join('\n'),
        resolveDir: join(here, '..', '..'),
        loader: 'ts',
      },
      outfile: bundle,
      bundle: true,
      platform: 'node',
      format: 'esm',
      packages: 'external',
      logLevel: 'error',
    });
    writeFileSync(
      join(out, 'hooks.mjs'),
      [
        'export async function resolve(specifier, context, next) {',
        "  if (/^@kubernetes\\/client-node(\\/|$)/.test(specifier)) throw new Error('client-node was imported by ' + context.parentURL);",
        '  return next(specifier, context);',
        '}',
      ].join('\n'),
    );
    writeFileSync(
      join(out, 'refuse-client-node.mjs'),
      "import { register } from 'node:module';\nregister('./hooks.mjs', import.meta.url);\n",
    );
    return () => rmSync(out, { recursive: true, force: true });
  });

  const run = (kubeconfig: string) =>
    spawnSync(process.execPath, ['--import', join(dirname(bundle), 'refuse-client-node.mjs'), bundle], {
      encoding: 'utf8',
      env: { ...process.env, KUBECONFIG: kubeconfig },
      timeout: 60_000,
    });

  it('loads a certificate or a token kubeconfig and makes requests without client-node', async () => {
    const cert = await env.plane.userKubeConfig('kubeconfig-no-client-node');
    const certRun = run(cert.path);
    expect(certRun.stderr).toBe('');
    expect(certRun.stdout.trim()).toBe('kubeconfig-no-client-node');
    const tokenFile = kubeconfigFile('child-token', { tokenFile: 'token' });
    writeFileSync(join(dir, 'child-token', 'token'), await serviceAccountToken('kc-child'));
    const tokenRun = run(tokenFile);
    expect(tokenRun.stderr).toBe('');
    expect(tokenRun.stdout.trim()).toBe(saUser('kc-child'));
  });

  it('fails there with an exec kubeconfig: the hook does refuse client-node', async () => {
    execPlugin('child-exec', await serviceAccountToken('kc-child-exec'));
    const r = run(kubeconfigFile('child-exec', { exec }));
    expect(r.status).not.toBe(0);
    expect(r.stderr).toContain('client-node was imported by');
  });
});
