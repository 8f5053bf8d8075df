/**
 * One kubeconfig file, parsed as client-go reads it: named lists of clusters, users and contexts
 * (a name twice in one file is an error), `current-context`, and file references made absolute
 * against the folder of the file that holds them.
 */
import { isAbsolute, resolve, sep } from 'node:path';
import jsYaml from 'js-yaml';
import type { Cluster, Context, ExecConfig, User } from './kubeconfig-types.js';

/** The entries of one kubeconfig document. */
export interface KubeConfigDocument {
  clusters: Cluster[];
  users: User[];
  contexts: Context[];
  /** `current-context`, when the document sets one. */
  currentContext?: string;
}

type Fields = Record<string, unknown>;

/**
 * Parses kubeconfig YAML (or JSON). `baseDir` is the folder relative file references are
 * resolved against; without it they stay as written.
 *
 * @throws Error with a one-line message: bad YAML, an entry without name, cluster or server,
 *   a field of the wrong type, a name twice.
 */
export function parseKubeConfig(text: string, baseDir?: string): KubeConfigDocument {
  let doc: unknown;
  try {
    doc = jsYaml.load(text);
  } catch (err) {
    const e = err as { reason?: string; mark?: { line?: number } };
    const where = e.mark?.line !== undefined ? ` at line ${e.mark.line + 1}` : '';
    throw new Error(`not valid YAML${where}: ${e.reason ?? String(err)}`);
  }
  if (doc === undefined || doc === null) return { clusters: [], users: [], contexts: [] };
  if (!isFields(doc)) throw new Error('not a kubeconfig: the document is not a mapping');
  const path = (p: string | undefined) => (p && baseDir && !isAbsolute(p) ? resolve(baseDir, p) : p);
  const current = optionalString(doc, 'current-context', 'the document');
  return {
    clusters: named(doc, 'clusters', 'cluster', (c, name) => cluster(c, name, path)),
    users: named(doc, 'users', 'user', (u, name) => user(u, name, path)),
    contexts: named(doc, 'contexts', 'context', (c, name) => context(c, name)),
    ...(current ? { currentContext: current } : {}),
  };
}

/** A named list (`- name: x\n  cluster: {...}`) as entries, refusing duplicates as client-go does. */
function named<T>(doc: Fields, list: string, field: string, build: (fields: Fields, name: string) => T): T[] {
  const items = doc[list];
  if (items === undefined || items === null) return [];
  if (!Array.isArray(items)) throw new Error(`${list} is not a list`);
  const seen = new Set<string>();
  return items.map((item: unknown, i) => {
    if (!isFields(item) || typeof item.name !== 'string' || item.name === '') {
      throw new Error(`${list}[${i}] has no name`);
    }
    const name = item.name;
    if (seen.has(name)) throw new Error(`${list}: "${name}" appears twice`);
    seen.add(name);
    const fields = item[field] ?? {};
    if (!isFields(fields)) throw new Error(`${list}[${i}] ("${name}"): ${field} is not a mapping`);
    return build(fields, name);
  });
}

function cluster(c: Fields, name: string, path: (p: string | undefined) => string | undefined): Cluster {
  const what = `cluster "${name}"`;
  const server = optionalString(c, 'server', what);
  if (!server) throw new Error(`${what} has no server`);
  return {
    name,
    server: server.replace(/\/$/, ''),
    ...defined({
      caData: optionalString(c, 'certificate-authority-data', what),
      caFile: path(optionalString(c, 'certificate-authority', what)),
      tlsServerName: optionalString(c, 'tls-server-name', what),
      proxyUrl: optionalString(c, 'proxy-url', what),
    }),
    skipTLSVerify: c['insecure-skip-tls-verify'] === true,
  };
}

function user(u: Fields, name: string, path: (p: string | undefined) => string | undefined): User {
  const what = `user "${name}"`;
  const s = (field: string) => optionalString(u, field, what);
  const exec = u.exec;
  if (exec !== undefined && exec !== null && !(isFields(exec) && typeof exec.command === 'string')) {
    throw new Error(`${what}: exec has no command`);
  }
  return {
    name,
    ...defined({
      certData: s('client-certificate-data'),
      certFile: path(s('client-certificate')),
      keyData: s('client-key-data'),
      keyFile: path(s('client-key')),
      token: s('token'),
      // kubectl's field is tokenFile; client-node reads token-file.
      tokenFile: path(s('tokenFile') ?? s('token-file')),
      username: s('username'),
      password: s('password'),
      impersonateUser: s('as'),
      impersonateUid: s('as-uid'),
      impersonateGroups: stringList(u['as-groups'], `${what}: as-groups`),
      impersonateExtra: extra(u['as-user-extra'], `${what}: as-user-extra`),
      exec: isFields(exec) ? execConfig(exec, path) : undefined,
      authProvider: isFields(u['auth-provider']) ? u['auth-provider'] : undefined,
    }),
  };
}

/** client-go resolves an exec command against the file's folder only when it is a path, not a name. */
function execConfig(exec: Fields, path: (p: string | undefined) => string | undefined): ExecConfig {
  const command = exec.command as string;
  return { ...exec, command: command.includes(sep) ? (path(command) as string) : command };
}

function context(c: Fields, name: string): Context {
  const what = `context "${name}"`;
  const clusterName = optionalString(c, 'cluster', what);
  if (!clusterName) throw new Error(`${what} names no cluster`);
  const namespace = optionalString(c, 'namespace', what);
  return {
    name,
    cluster: clusterName,
    user: optionalString(c, 'user', what) ?? '',
    ...(namespace ? { namespace } : {}),
  };
}

function optionalString(fields: Fields, field: string, what: string): string | undefined {
  const value = fields[field];
  if (value === undefined || value === null || value === '') return undefined;
  if (typeof value !== 'string') throw new Error(`${what}: ${field} is not a string`);
  return value;
}

function stringList(value: unknown, what: string): string[] | undefined {
  if (value === undefined || value === null) return undefined;
  if (!Array.isArray(value) || !value.every((v) => typeof v === 'string')) {
    throw new Error(`${what} is not a list of strings`);
  }
  return value.length > 0 ? value : undefined;
}

function extra(value: unknown, what: string): Record<string, string[]> | undefined {
  if (value === undefined || value === null) return undefined;
  if (!isFields(value)) throw new Error(`${what} is not a mapping`);
  const out: Record<string, string[]> = {};
  for (const [key, list] of Object.entries(value)) out[key] = stringList(list, `${what}.${key}`) ?? [];
  return out;
}

function isFields(value: unknown): value is Fields {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** `value` without its undefined fields, so that entries compare and print cleanly. */
function defined<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}
