/**
 * What both reconcilers read before they decide: the owner Cluster, pause and our finalizer, the
 * VCDCluster, and a VCD connection built from the credentials Secret (TLS verified unless the
 * user switched it off).
 */
import {
  addFinalizer,
  type Client,
  type Clock,
  isNotFound,
  type KubeObject,
  type ResourceType,
  type Result,
} from '@capstan/runtime';
import { Namespace, type Secret } from '@capstan/runtime/client';
import { type Cluster, ClusterType } from './api/capi.js';
import { CAPI_GROUP, PAUSED_ANNOTATION } from './api/keys.js';
import { type VCDCluster, VCDClusterIdentityType } from './api/types.js';
import { credentialsAccess, credentialsSecretOf } from './credentials.js';
import type { CredentialsSecrets } from './credentials-secrets.js';
import { pausedCondition, type WithConditions, writeStatus } from './status.js';
import type { Connection, Connections } from './vcd/connections.js';
import type { Credentials } from './vcd/session.js';

/** The credentials Secret's keys. */
export const SecretKeys = {
  username: 'username',
  password: 'password',
  refreshToken: 'refreshToken',
  /** Optional PEM CA bundle to verify the site with. */
  caBundle: 'ca.crt',
} as const;

/** Why an object cannot be reconciled now (said in a condition, never a crash). */
export class NotReady extends Error {
  override readonly name = 'NotReady';
  constructor(
    readonly reason: string,
    message: string,
  ) {
    super(message);
  }
}

/** Whether the Cluster or the object itself is paused. */
export const isPaused = (cluster: Cluster | undefined, object: KubeObject): boolean =>
  cluster?.spec?.paused === true || object.metadata.annotations?.[PAUSED_ANNOTATION] !== undefined;

/**
 * What both reconcilers settle before any VCD call: a paused object (or Cluster) gets its Paused
 * condition written and nothing else; a deleted object without our finalizer is none of our
 * business; a live one gets our finalizer first, and comes back. Returns the reconcile's result
 * when it ends here, undefined when it goes on (Paused set False in `status`).
 */
export async function gate<T extends KubeObject & { status?: unknown }>(
  client: Client,
  type: ResourceType<T>,
  object: T,
  status: WithConditions,
  cluster: Cluster | undefined,
  finalizer: string,
  clock: Clock,
): Promise<{ result: Result | undefined } | undefined> {
  const paused = isPaused(cluster, object);
  pausedCondition(status, object, paused);
  if (paused) {
    await writeStatus(client, type, object, status, clock);
    return { result: undefined };
  }
  if (object.metadata.finalizers?.includes(finalizer)) return undefined;
  if (object.metadata.deletionTimestamp !== undefined) return { result: undefined };
  await addFinalizer(client, type, object, finalizer);
  return { result: { requeue: true } };
}

/** The name of the controller owner of `kind` in Cluster API's group, if any. */
export function capiOwner(object: KubeObject, kind: string): string | undefined {
  return object.metadata.ownerReferences?.find(
    (r) => r.kind === kind && r.apiVersion.split('/')[0] === CAPI_GROUP,
  )?.name;
}

/** Reads a Cluster; undefined when it does not exist (yet). */
export async function getCluster(
  client: Client,
  namespace: string,
  name: string,
): Promise<Cluster | undefined> {
  try {
    return await client.get(ClusterType, { namespace, name });
  } catch (err) {
    if (isNotFound(err)) return undefined;
    throw err;
  }
}

const decode = (data: Record<string, string> | undefined, key: string): string | undefined => {
  const value = data?.[key];
  return value === undefined ? undefined : Buffer.from(value, 'base64').toString('utf8').trim();
};

/**
 * The VCDCluster's credentials Secret, once it may use it ({@link credentialsAccess}): nothing is
 * read from a Secret the VCDCluster may not name. @throws NotReady when refused or missing.
 */
export async function credentialsSecret(
  secrets: CredentialsSecrets,
  vcdCluster: VCDCluster,
): Promise<Secret> {
  const key = credentialsSecretOf(vcdCluster);
  const namespace = vcdCluster.metadata.namespace as string;
  const { client } = secrets;
  if (key.namespace !== namespace) {
    const [ns, identities] = await Promise.all([
      getOrUndefined(() => client.get(Namespace, { name: namespace })),
      client.list(VCDClusterIdentityType),
    ]);
    const access = credentialsAccess(namespace, ns?.metadata.labels ?? {}, key, identities.items);
    if (!access.allowed) throw new NotReady(access.reason, access.message);
  }
  const secret = await secrets.get(key);
  if (!secret) throw new NotReady('CredentialsNotFound', `Secret ${key.namespace}/${key.name} not found`);
  return secret;
}

/**
 * A connection for the VCDCluster's site and credentials (`secret` when the caller has read it
 * already). @throws NotReady when the Secret is refused, missing or incomplete.
 */
export async function connectionFor(
  secrets: CredentialsSecrets,
  connections: Connections,
  vcdCluster: VCDCluster,
  read?: Secret,
): Promise<Connection> {
  const secret = read ?? (await credentialsSecret(secrets, vcdCluster));
  const { namespace, name } = credentialsSecretOf(vcdCluster);
  const credentials: Credentials = {
    org: vcdCluster.spec.org,
    username: decode(secret.data, SecretKeys.username),
    password: decode(secret.data, SecretKeys.password),
    refreshToken: decode(secret.data, SecretKeys.refreshToken),
  };
  if (!credentials.refreshToken && !(credentials.username && credentials.password)) {
    throw new NotReady(
      'CredentialsInvalid',
      `Secret ${namespace}/${name} needs key refreshToken, or keys username and password`,
    );
  }
  const caPem = decode(secret.data, SecretKeys.caBundle);
  return connections.connect(
    {
      url: vcdCluster.spec.site,
      insecure: vcdCluster.spec.insecureSkipTLSVerify === true,
      ...(caPem ? { caPem } : {}),
    },
    credentials,
  );
}

/** Reads with `read`; undefined when the object does not exist. */
export async function getOrUndefined<T>(read: () => Promise<T>): Promise<T | undefined> {
  try {
    return await read();
  } catch (err) {
    if (isNotFound(err)) return undefined;
    throw err;
  }
}
