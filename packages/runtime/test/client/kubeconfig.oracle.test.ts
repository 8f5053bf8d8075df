/**
 * The runtime's kubeconfig against client-node's, the oracle: arbitrary kubeconfig files (clusters,
 * users and contexts with the fields the runtime serves itself; file references relative to each
 * file's folder or absolute; several files merged) give the same current context, cluster, user,
 * namespace and HTTPS options in both.
 *
 * Where the two libraries differ on purpose the generator keeps out of the way, and
 * kube-config.test.ts pins the runtime's (client-go's) side: a name defined in two files (client-node
 * throws, kubectl takes the first), `current-context` in several files (client-node takes the last,
 * kubectl the first; client-node is fed the files in reverse so the first setter wins for both),
 * data and file both given, a context without user (client-node then skips the CA).
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type https from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KubeConfig as ClientNodeKubeConfig } from '@kubernetes/client-node';
import fc from 'fast-check';
import jsYaml from 'js-yaml';
import { afterAll, describe, expect, it } from 'vitest';
import { KubeConfig } from '../../src/kubeconfig/kube-config.js';

const root = mkdtempSync(join(tmpdir(), 'capstan-kubeconfig-oracle-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const word = fc.stringMatching(/^[a-z][a-z0-9]{0,6}$/);
const b64 = word.map((w) => Buffer.from(`pem-${w}`).toString('base64'));
/** A credential: inline data, a file (relative to the kubeconfig's folder, or absolute), or nothing. */
const material = fc.oneof(
  fc.constant(undefined),
  b64.map((data) => ({ data })),
  fc.record({ file: word, absolute: fc.boolean(), content: word }),
);
type Material = typeof material extends fc.Arbitrary<infer T> ? T : never;

const clusterFields = fc.record({
  server: fc.tuple(word, fc.integer({ min: 1, max: 65535 }), fc.boolean()),
  ca: material,
  skip: fc.boolean(),
  tlsServerName: fc.option(word, { nil: undefined }),
});
const userFields = fc.record({
  cert: material,
  key: material,
  auth: fc.oneof(
    fc.constant(undefined),
    word.map((token) => ({ token })),
    fc.record({ username: word, password: word }),
    // client-node reads `token-file` once, relative to the working directory: absolute paths only.
    word.map((tokenFile) => ({ tokenFile })),
  ),
  as: fc.option(word, { nil: undefined }),
});
const contextFields = fc.record({
  cluster: fc.nat(4),
  user: fc.nat(4),
  namespace: fc.option(word, { nil: undefined }),
});

/** Entries with names unique across all files (client-node refuses a name twice), spread over files. */
const kubeconfigs = fc
  .record({
    clusters: fc.uniqueArray(fc.tuple(word, clusterFields, fc.nat(2)), {
      selector: ([n]) => n,
      maxLength: 4,
    }),
    users: fc.uniqueArray(fc.tuple(word, userFields, fc.nat(2)), {
      selector: ([n]) => n,
      minLength: 1,
      maxLength: 4,
    }),
    contexts: fc.uniqueArray(fc.tuple(word, contextFields, fc.nat(2)), {
      selector: ([n]) => n,
      minLength: 1,
      maxLength: 4,
    }),
    files: fc.integer({ min: 1, max: 3 }),
    current: fc.array(fc.option(fc.nat(4), { nil: undefined }), { minLength: 3, maxLength: 3 }),
  })
  .map((g) => ({ ...g, id: Math.random().toString(36).slice(2) }));

type Generated = typeof kubeconfigs extends fc.Arbitrary<infer T> ? T : never;

/** Writes the files of `g`; answers their paths in KUBECONFIG order. */
function writeFiles(g: Generated): string[] {
  const paths: string[] = [];
  for (let f = 0; f < g.files; f++) {
    const dir = join(root, g.id, `f${f}`);
    mkdirSync(dir, { recursive: true });
    const ref = (m: Material, dataField: string, fileField: string): Record<string, string> => {
      if (!m) return {};
      if ('data' in m) return { [dataField]: m.data };
      writeFileSync(join(dir, `${m.file}.pem`), m.content);
      return { [fileField]: m.absolute ? join(dir, `${m.file}.pem`) : `${m.file}.pem` };
    };
    const tokenRef = (auth: (typeof g.users)[number][1]['auth']) => {
      if (!auth || !('tokenFile' in auth)) return auth;
      const path = join(dir, `${auth.tokenFile}.token`);
      writeFileSync(path, `token-${auth.tokenFile}`);
      return { 'token-file': path };
    };
    const mine = <T>(entries: [string, T, number][]) => entries.filter(([, , file]) => file % g.files === f);
    const name = (list: [string, ...unknown[]][], i: number) => list[i]?.[0] ?? `missing${i}`;
    const current = g.current[f];
    const doc = {
      apiVersion: 'v1',
      kind: 'Config',
      clusters: mine(g.clusters).map(([n, c]) => ({
        name: n,
        cluster: {
          server: `https://${c.server[0]}.example:${c.server[1]}${c.server[2] ? '/' : ''}`,
          ...ref(c.ca, 'certificate-authority-data', 'certificate-authority'),
          ...(c.skip ? { 'insecure-skip-tls-verify': true } : {}),
          ...(c.tlsServerName ? { 'tls-server-name': c.tlsServerName } : {}),
        },
      })),
      users: mine(g.users).map(([n, u]) => ({
        name: n,
        user: {
          ...ref(u.cert, 'client-certificate-data', 'client-certificate'),
          ...ref(u.key, 'client-key-data', 'client-key'),
          ...tokenRef(u.auth),
          ...(u.as ? { as: u.as } : {}),
        },
      })),
      contexts: mine(g.contexts).map(([n, c]) => ({
        name: n,
        context: {
          cluster: name(g.clusters, c.cluster),
          // Always a known user: client-node applies no CA for a context without one.
          user: name(g.users, c.user % g.users.length),
          ...(c.namespace ? { namespace: c.namespace } : {}),
        },
      })),
      ...(current !== undefined ? { 'current-context': name(g.contexts, current) } : {}),
    };
    const path = join(dir, 'config');
    writeFileSync(path, jsYaml.dump(doc));
    paths.push(path);
  }
  return paths;
}

function clientNode(paths: string[]): ClientNodeKubeConfig {
  const [first, ...rest] = [...paths].reverse();
  const kc = new ClientNodeKubeConfig();
  kc.loadFromFile(first as string);
  for (const path of rest) {
    const next = new ClientNodeKubeConfig();
    next.loadFromFile(path);
    kc.mergeConfig(next);
  }
  return kc;
}

/** An entry without its absent fields (client-node keeps them as null). */
const present = (entry: object | null) =>
  entry && Object.fromEntries(Object.entries(entry).filter(([, v]) => v !== undefined && v !== null));

/** What a request would carry: TLS material, server name, verification and the Authorization header. */
async function applied(kc: { applyToHTTPSOptions(o: https.RequestOptions): Promise<void> }) {
  const o: https.RequestOptions = {};
  await kc.applyToHTTPSOptions(o);
  const headers = { ...(o.headers as Record<string, string>) };
  if (o.auth && !headers.Authorization)
    headers.Authorization = `Basic ${Buffer.from(o.auth).toString('base64')}`;
  return {
    ca: o.ca?.toString(),
    cert: o.cert?.toString(),
    key: o.key?.toString(),
    servername: o.servername,
    rejectUnauthorized: o.rejectUnauthorized,
    headers,
  };
}

describe('KubeConfig, with client-node as the oracle', () => {
  it('agrees on the current context, cluster, user, namespace and HTTPS options of merged files', async () => {
    await fc.assert(
      fc.asyncProperty(kubeconfigs, async (g) => {
        const paths = writeFiles(g);
        const ours = KubeConfig.fromFiles(paths);
        const theirs = clientNode(paths);
        expect(ours.getCurrentContext() || undefined).toBe(theirs.getCurrentContext());
        expect(present(ours.getCurrentCluster())).toEqual(present(theirs.getCurrentCluster()));
        // A token file is a token read at load for client-node, a file read per request here: the
        // Authorization header below compares what counts.
        const { tokenFile: _file, token: _ours, ...ourUser } = present(ours.getCurrentUser()) ?? {};
        const { token: _theirs, ...theirUser } = present(theirs.getCurrentUser()) ?? {};
        expect(ourUser).toEqual(theirUser);
        const namespace = (kc: { getContextObject(n: string): { namespace?: string } | null }, n: string) =>
          kc.getContextObject(n)?.namespace;
        expect(namespace(ours, ours.getCurrentContext())).toBe(namespace(theirs, theirs.getCurrentContext()));
        expect(await applied(ours)).toEqual(await applied(theirs));
      }),
      { numRuns: 150 },
    );
  });
});
