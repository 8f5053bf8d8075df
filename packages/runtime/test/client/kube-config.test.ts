/**
 * The runtime's KubeConfig where it follows client-go rather than client-node (see
 * kubeconfig.oracle.test.ts for where both agree), and what client-node does not do at all:
 * in-cluster config from a mounted service account, token files re-read as they rotate, kubectl's
 * impersonation fields.
 */
import { mkdirSync, mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import type https from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KubeConfig as ClientNodeKubeConfig } from '@kubernetes/client-node';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { KubeConfig } from '../../src/kubeconfig/kube-config.js';
import { SERVICE_ACCOUNT_DIR } from '../../src/kubeconfig/kubeconfig-in-cluster.js';
import { HttpTransport } from '../../src/transport/http-transport.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'capstan-kube-config-'));
});
afterEach(() => {
  vi.unstubAllEnvs();
  rmSync(dir, { recursive: true, force: true });
});

function write(path: string, text: string): string {
  const full = join(dir, path);
  mkdirSync(join(full, '..'), { recursive: true });
  writeFileSync(full, text);
  return full;
}

const doc = (entries: { clusters?: object[]; users?: object[]; contexts?: object[]; current?: string }) =>
  JSON.stringify({
    clusters: entries.clusters ?? [],
    users: entries.users ?? [],
    contexts: entries.contexts ?? [],
    ...(entries.current ? { 'current-context': entries.current } : {}),
  });

async function applied(kc: KubeConfig): Promise<https.RequestOptions> {
  const options: https.RequestOptions = {};
  await kc.applyToHTTPSOptions(options);
  return options;
}

describe('KubeConfig.fromFiles: the KUBECONFIG merge', () => {
  it('takes each name from the first file that defines it, and the first current-context', () => {
    const a = write(
      'a/config',
      doc({
        clusters: [{ name: 'shared', cluster: { server: 'https://from-a' } }],
        contexts: [{ name: 'ctx', context: { cluster: 'shared', namespace: 'ns-a' } }],
      }),
    );
    const b = write(
      'b/config',
      doc({
        clusters: [
          { name: 'shared', cluster: { server: 'https://from-b' } },
          { name: 'only-b', cluster: { server: 'https://only-b' } },
        ],
        contexts: [{ name: 'ctx', context: { cluster: 'only-b' } }],
        current: 'ctx',
      }),
    );
    const c = write('c/config', doc({ current: 'other' }));
    const kc = KubeConfig.fromFiles([a, b, c]);
    expect(kc.getCurrentContext()).toBe('ctx');
    expect(kc.getCurrentCluster()?.server).toBe('https://from-a');
    expect(kc.getContextObject('ctx')?.namespace).toBe('ns-a');
    expect(kc.getCluster('only-b')?.server).toBe('https://only-b');
  });

  it('resolves relative references against the folder of the file that holds them', () => {
    const a = write(
      'a/config',
      doc({
        clusters: [{ name: 'c', cluster: { server: 'https://x', 'certificate-authority': 'ca.pem' } }],
        contexts: [{ name: 'ctx', context: { cluster: 'c', user: 'u' } }],
        current: 'ctx',
      }),
    );
    const b = write(
      'b/sub/config',
      doc({
        users: [
          {
            name: 'u',
            user: {
              'client-certificate': '../cert.pem',
              tokenFile: 'token',
              exec: { command: './bin/cred' },
            },
          },
          { name: 'on-path', user: { exec: { command: 'kubelogin' } } },
        ],
      }),
    );
    const kc = KubeConfig.fromFiles([a, b]);
    expect(kc.getCurrentCluster()?.caFile).toBe(join(dir, 'a', 'ca.pem'));
    expect(kc.getCurrentUser()?.certFile).toBe(join(dir, 'b', 'cert.pem'));
    expect(kc.getCurrentUser()?.tokenFile).toBe(join(dir, 'b', 'sub', 'token'));
    expect(kc.getCurrentUser()?.exec?.command).toBe(join(dir, 'b', 'sub', 'bin', 'cred'));
    // A command without a separator is looked up on PATH, as client-go does.
    expect(kc.getUser('on-path')?.exec?.command).toBe('kubelogin');
  });

  it('refuses a name twice in one file, as client-go does', () => {
    const twice = doc({ clusters: [1, 2].map(() => ({ name: 'c', cluster: { server: 'https://x' } })) });
    expect(() => KubeConfig.fromString(twice)).toThrow(/^clusters: "c" appears twice$/);
  });
});

/** A kubeconfig of one cluster `c`, one user `u` and the context `ctx` joining them. */
const oneUser = (user: object, cluster: object = {}, baseDir?: string) =>
  KubeConfig.fromString(
    doc({
      clusters: [{ name: 'c', cluster: { server: 'https://x', ...cluster } }],
      users: [{ name: 'u', user }],
      contexts: [{ name: 'ctx', context: { cluster: 'c', user: 'u' } }],
      current: 'ctx',
    }),
    baseDir,
  );

describe('KubeConfig credentials', () => {
  const single = (user: object, cluster: object = {}) => oneUser(user, cluster, dir);

  it('re-reads a token file when it changes (a kubelet rotation swaps the file), and trims it', async () => {
    write('token', 'first\n');
    const kc = single({ tokenFile: 'token', token: 'static' });
    expect((await applied(kc)).headers).toEqual({ Authorization: 'Bearer first' });
    write('token.new', ' second-and-longer\n');
    renameSync(join(dir, 'token.new'), join(dir, 'token'));
    expect((await applied(kc)).headers).toEqual({ Authorization: 'Bearer second-and-longer' });
    // Gone half way through a rotation: the last good token, as client-go's cached source.
    rmSync(join(dir, 'token'));
    expect((await applied(kc)).headers).toEqual({ Authorization: 'Bearer second-and-longer' });
  });

  it('prefers inline CA data to a CA file (client-go; client-node reads the file)', async () => {
    write('ca.pem', 'from-file');
    const kc = single(
      {},
      { 'certificate-authority': 'ca.pem', 'certificate-authority-data': btoa('inline') },
    );
    expect((await applied(kc)).ca?.toString()).toBe('inline');
  });

  it('applies the CA of a context that names no user (client-node applies nothing then)', async () => {
    const kc = KubeConfig.fromString(
      doc({
        clusters: [{ name: 'c', cluster: { server: 'https://x', 'certificate-authority-data': btoa('ca') } }],
        contexts: [{ name: 'ctx', context: { cluster: 'c' } }],
        current: 'ctx',
      }),
    );
    expect(kc.getCurrentUser()).toBeNull();
    expect((await applied(kc)).ca?.toString()).toBe('ca');
  });

  it("sends kubectl's impersonation headers: user, uid, groups and extras", async () => {
    const kc = single({
      token: 't',
      as: 'jane',
      'as-uid': '42',
      'as-groups': ['devs', 'ops'],
      'as-user-extra': { 'reason/why': ['audit'] },
    });
    expect((await applied(kc)).headers).toEqual({
      Authorization: 'Bearer t',
      'Impersonate-User': 'jane',
      'Impersonate-Uid': '42',
      'Impersonate-Group': ['devs', 'ops'],
      'Impersonate-Extra-reason%2Fwhy': ['audit'],
    });
  });

  it('sends basic auth when the user has a username and no token', async () => {
    expect((await applied(single({ username: 'u', password: 'p' }))).auth).toBe('u:p');
  });
});

describe('KubeConfig through client-node (imported on first use)', () => {
  const through = (user: object, cluster: object = {}) => oneUser(user, cluster);

  it("serves an oidc auth-provider with client-node's authenticator", async () => {
    const part = (o: object) => Buffer.from(JSON.stringify(o)).toString('base64url');
    const idToken = `${part({ alg: 'none' })}.${part({ exp: Math.floor(Date.now() / 1000) + 3600 })}.sig`;
    const kc = through({
      'auth-provider': { name: 'oidc', config: { 'id-token': idToken, 'client-id': 'k' } },
    });
    expect((await applied(kc)).headers).toEqual({ Authorization: `Bearer ${idToken}` });
  });

  it("reaches a cluster behind a proxy-url with client-node's proxy agent, keeping kubectl's impersonation", async () => {
    const kc = through(
      { token: 't', as: 'jane', 'as-groups': ['ops'] },
      { 'proxy-url': 'http://proxy.example:3128' },
    );
    const options = await applied(kc);
    expect(options.agent?.constructor.name).toBe('HttpsProxyAgent');
    expect(options.headers).toEqual({
      Authorization: 'Bearer t',
      'Impersonate-User': 'jane',
      'Impersonate-Group': ['ops'],
    });
  });
});

describe('KubeConfig in a cluster', () => {
  function mount(namespace?: string): string {
    const prefix = join(dir, 'pod');
    write(`pod${SERVICE_ACCOUNT_DIR}/token`, 'sa-token\n');
    write(`pod${SERVICE_ACCOUNT_DIR}/ca.crt`, 'cluster-ca');
    if (namespace) write(`pod${SERVICE_ACCOUNT_DIR}/namespace`, namespace);
    return prefix;
  }

  it("builds client-go's in-cluster config from the environment and the mounted service account", async () => {
    vi.stubEnv('KUBERNETES_SERVICE_HOST', '10.96.0.1');
    vi.stubEnv('KUBERNETES_SERVICE_PORT', '443');
    const kc = new KubeConfig();
    kc.loadFromCluster(mount('team-a'));
    expect(kc.getCurrentCluster()?.server).toBe('https://10.96.0.1:443');
    expect(kc.getContextObject(kc.getCurrentContext())?.namespace).toBe('team-a');
    const options = await applied(kc);
    expect(options.ca?.toString()).toBe('cluster-ca');
    expect(options.headers).toEqual({ Authorization: 'Bearer sa-token' });
  });

  it('puts an IPv6 service host in brackets, and connects to it without them', () => {
    vi.stubEnv('KUBERNETES_SERVICE_HOST', 'fd00::1');
    vi.stubEnv('KUBERNETES_SERVICE_PORT', '6443');
    const kc = new KubeConfig();
    kc.loadFromCluster(mount());
    expect(kc.getCurrentCluster()?.server).toBe('https://[fd00::1]:6443');
    expect(new HttpTransport(kc).host).toBe('[fd00::1]:6443');
    expect(kc.getContextObject(kc.getCurrentContext())?.namespace).toBeUndefined();
  });
});

describe("KubeConfig and client-node's KubeConfig", () => {
  it('client-node objects stand where the runtime asks for a KubeConfig, and exports load back', () => {
    const theirs = new ClientNodeKubeConfig();
    theirs.loadFromOptions({
      clusters: [{ name: 'c', server: 'https://x', skipTLSVerify: false }],
      users: [{ name: 'u', token: 't' }],
      contexts: [{ name: 'ctx', cluster: 'c', user: 'u' }],
      currentContext: 'ctx',
    });
    // Compiles only while the runtime's type stays a structural subset of client-node's.
    const asOurs: KubeConfig = theirs;
    const back = KubeConfig.fromString(asOurs.exportConfig());
    expect(back.getCurrentUser()).toEqual({ name: 'u', token: 't' });
    expect(back.getCurrentCluster()).toEqual({ name: 'c', server: 'https://x', skipTLSVerify: false });
  });
});
