/**
 * The entries of a kubeconfig, in memory. Field names follow client-node's `Cluster`, `User` and
 * `Context`, so that objects of either library fit both; the fields client-node lacks are optional.
 */
import type https from 'node:https';

/** A cluster entry: where the API server is and how to trust it. */
export interface Cluster {
  /** The entry's name in the kubeconfig. */
  readonly name: string;
  /** The API server's URL (`server`), without a trailing slash. */
  readonly server: string;
  /** PEM of the CA bundle, base64 (`certificate-authority-data`); wins over `caFile`. */
  readonly caData?: string;
  /** Path of the CA bundle (`certificate-authority`), absolute once loaded from a file. */
  caFile?: string;
  /** Trust any server certificate (`insecure-skip-tls-verify`). */
  readonly skipTLSVerify: boolean;
  /** Server name sent in TLS SNI and checked against the certificate (`tls-server-name`). */
  readonly tlsServerName?: string;
  /** HTTP(S) or SOCKS proxy to reach the server through (`proxy-url`). */
  readonly proxyUrl?: string;
}

/** One variable of an exec plugin's environment. */
export interface ExecEnvVar {
  /** Variable name. */
  readonly name: string;
  /** Its value. */
  readonly value: string;
}

/** An exec credential plugin (`user.exec`): a program that prints an ExecCredential. */
export interface ExecConfig {
  /** The program; relative paths with a separator are resolved against the kubeconfig's folder. */
  readonly command: string;
  /** Arguments of the program. */
  readonly args?: readonly string[];
  /** Variables added to the program's environment. */
  readonly env?: readonly ExecEnvVar[];
  /** `client.authentication.k8s.io/v1` or `v1beta1`. */
  readonly apiVersion?: string;
  /** Other fields (installHint, provideClusterInfo, interactiveMode) as the file has them. */
  readonly [field: string]: unknown;
}

/** A user entry: the credentials requests carry. */
export interface User {
  /** The entry's name in the kubeconfig. */
  readonly name: string;
  /** Client certificate PEM, base64 (`client-certificate-data`). */
  readonly certData?: string;
  /** Path of the client certificate (`client-certificate`). */
  certFile?: string;
  /** Client key PEM, base64 (`client-key-data`). */
  readonly keyData?: string;
  /** Path of the client key (`client-key`). */
  keyFile?: string;
  /** A bearer token (`token`). */
  readonly token?: string;
  /** A file holding the bearer token (`tokenFile`), re-read as it rotates; wins over `token`. */
  tokenFile?: string;
  /** Basic authentication user (`username`); a token wins over it. */
  readonly username?: string;
  /** Basic authentication password (`password`). */
  readonly password?: string;
  /** The user to act as (`as`: the `Impersonate-User` header). */
  readonly impersonateUser?: string;
  /** The UID to act as (`as-uid`). */
  readonly impersonateUid?: string;
  /** The groups to act as (`as-groups`). */
  readonly impersonateGroups?: readonly string[];
  /** Extra user info to act with (`as-user-extra`). */
  readonly impersonateExtra?: Readonly<Record<string, readonly string[]>>;
  /** An exec credential plugin (`exec`); served through client-node, loaded when first needed. */
  readonly exec?: ExecConfig;
  /** An auth provider (`auth-provider`: oidc, azure, gcp); served through client-node likewise. */
  // biome-ignore lint/suspicious/noExplicitAny: the provider's own config, as client-node types it.
  readonly authProvider?: any;
}

/** A context entry: a cluster, a user and a default namespace. */
export interface Context {
  /** The entry's name in the kubeconfig. */
  readonly name: string;
  /** Name of the cluster entry. */
  readonly cluster: string;
  /** Name of the user entry; empty when the context names none. */
  readonly user: string;
  /** The namespace requests default to (`namespace`). */
  readonly namespace?: string;
}

/**
 * What an `HttpTransport` (from `@capstan/runtime/client`) needs of a kubeconfig: the current cluster and a way to put the
 * current user's credentials on a request. The runtime's {@link KubeConfig} has it, and so has
 * client-node's `KubeConfig`, which is why both are accepted.
 */
export interface ClusterAccess {
  /** The current context's cluster, or null when there is none. */
  getCurrentCluster(): Pick<Cluster, 'server' | 'proxyUrl'> | null;
  /**
   * Sets the TLS material (`ca`, `cert`, `key`, `servername`, `rejectUnauthorized`) and the
   * authentication (`headers`, `auth`) of the current context on `options`. Called per request:
   * credentials rotate.
   */
  applyToHTTPSOptions(options: https.RequestOptions): Promise<void>;
}
