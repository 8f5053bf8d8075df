/**
 * Webhooks in tests, as controller-runtime's envtest installs them: a CA and a serving certificate
 * for 127.0.0.1 written where the webhook server reads them (`tls.crt`, `tls.key`), a free port,
 * and the Mutating/ValidatingWebhookConfigurations and CRD conversion stanzas rewritten to call
 * `https://127.0.0.1:<port><path>` with that CA, so the real kube-apiserver calls the test's server.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CertificateAuthority } from '@capstan/runtime/testing';
import type { ControlPlane, CrdObject } from './control-plane.js';
import { type ManifestObject, readManifests } from './manifests.js';
import { freePort } from './ports.js';

/** A webhook configuration as plain JSON (as read from YAML, e.g. controller-gen's output). */
export interface WebhookConfiguration extends ManifestObject {
  webhooks?: Array<{
    name: string;
    clientConfig?: ClientConfig;
    namespaceSelector?: unknown;
    [k: string]: unknown;
  }>;
}

interface ClientConfig {
  url?: string;
  service?: { name?: string; namespace?: string; path?: string; port?: number };
  caBundle?: string;
}

/** Options of {@link installWebhooks}. */
export interface WebhookInstallOptions {
  /**
   * MutatingWebhookConfigurations: YAML files or objects (only objects of that kind are taken, so one
   * file may be named here and in `validating`); `service.path` (or the url's path) is kept.
   */
  mutating?: Array<string | WebhookConfiguration>;
  /** ValidatingWebhookConfigurations, read as `mutating` is. */
  validating?: Array<string | WebhookConfiguration>;
  /**
   * CRDs to install; those whose `spec.conversion.strategy` is `Webhook` get their conversion sent to
   * the local server (at their `service.path`, default `/convert`).
   */
  crds?: Array<string | CrdObject>;
  /**
   * For a shared control plane: call the admission webhooks only for objects in this namespace, and
   * suffix the configurations' names with it, so test files do not see each other's webhooks.
   */
  namespace?: string;
  /** Default: a free port on 127.0.0.1. */
  port?: number;
  /** Where `tls.crt` and `tls.key` go; default a new temporary folder (removed by `uninstall`). */
  certDir?: string;
}

const base64 = (text: string) => Buffer.from(text).toString('base64');
const ADMISSION = '/apis/admissionregistration.k8s.io/v1';

/**
 * A webhook serving certificate for 127.0.0.1, ::1 and localhost in a folder (`tls.crt`, `tls.key`),
 * signed by a CA of its own, that can be rotated in place as cert-manager rotates one.
 */
export class WebhookServingCert {
  private constructor(
    /** Give this to the webhook server (`--webhook-cert-dir`). */
    readonly certDir: string,
    private authority: CertificateAuthority,
    private readonly ownsCertDir: boolean,
  ) {}

  /** Writes a new pair into `certDir` (default: a new temporary folder, removed by `remove`). */
  static async create(certDir?: string): Promise<WebhookServingCert> {
    const dir = certDir ?? mkdtempSync(join(tmpdir(), 'capstan-webhook-certs-'));
    const cert = new WebhookServingCert(dir, newAuthority(), certDir === undefined);
    await cert.write();
    return cert;
  }

  /** The CA that signed the current certificate, in PEM. */
  get caPem(): string {
    return this.authority.certPem;
  }

  /** Writes a newly issued pair over the old one, signed by the current CA. */
  rotate(): Promise<void> {
    return this.write();
  }

  /** Makes a new CA current; the next {@link WebhookServingCert.rotate} issues from it. */
  async replaceAuthority(): Promise<void> {
    this.authority = newAuthority();
  }

  /** Removes the folder if this created it. */
  remove(): void {
    if (this.ownsCertDir) rmSync(this.certDir, { recursive: true, force: true });
  }

  private async write(): Promise<void> {
    const pair = this.authority.issueServing('capstan-envtest-webhook');
    // Key first, each replaced by rename, so a reader sees whole files (and a mismatched pair
    // only between the two renames, which a reloading server must tolerate).
    for (const [name, content] of [
      ['tls.key', pair.key],
      ['tls.crt', pair.cert],
    ] as const) {
      const partial = join(this.certDir, `.${name}.partial`);
      writeFileSync(partial, content, { mode: 0o600 });
      renameSync(partial, join(this.certDir, name));
    }
  }
}

const newAuthority = () =>
  CertificateAuthority.create(`capstan-envtest-webhook-ca-${randomBytes(3).toString('hex')}`);

/** Installed webhooks: where to serve them, and how to rotate the certificate or remove them. */
export class WebhookInstallation {
  /** The address the API server calls: always 127.0.0.1 (the certificate's SAN). */
  readonly host = '127.0.0.1';

  private constructor(
    private readonly plane: ControlPlane,
    readonly port: number,
    /** The serving certificate; its `certDir` is the webhook server's `--webhook-cert-dir`. */
    readonly serving: WebhookServingCert,
    private readonly configurations: Array<{ resource: string; object: WebhookConfiguration }>,
    private readonly crds: CrdObject[],
  ) {}

  /** Give this to the webhook server (`--webhook-cert-dir`). */
  get certDir(): string {
    return this.serving.certDir;
  }

  /** Installs everything; see {@link installWebhooks}. */
  static async install(plane: ControlPlane, options: WebhookInstallOptions): Promise<WebhookInstallation> {
    const port = options.port ?? (await freePort());
    const read = (items: Array<string | WebhookConfiguration> | undefined, kind: string) =>
      (items ?? [])
        .flatMap((i) => (typeof i === 'string' ? readManifests(i) : [structuredClone(i)]))
        .filter((o) => o.kind === kind) as WebhookConfiguration[];
    const configurations = [
      ...read(options.mutating, 'MutatingWebhookConfiguration').map((object) => ({
        resource: 'mutatingwebhookconfigurations',
        object,
      })),
      ...read(options.validating, 'ValidatingWebhookConfiguration').map((object) => ({
        resource: 'validatingwebhookconfigurations',
        object,
      })),
    ];
    for (const { object } of configurations) scope(object, options.namespace);
    const crds = (options.crds ?? []).flatMap((c) =>
      typeof c === 'string'
        ? (readManifests(c).filter((o) => o.kind === 'CustomResourceDefinition') as CrdObject[])
        : [structuredClone(c)],
    );
    const serving = await WebhookServingCert.create(options.certDir);
    const installation = new WebhookInstallation(plane, port, serving, configurations, crds);
    await installation.apply();
    return installation;
  }

  /** The URL the API server calls for `path`. */
  url(path: string): string {
    return `https://${this.host}:${this.port}${path}`;
  }

  /**
   * Issues a new serving certificate and writes it over the old one, as cert-manager does. With
   * `newAuthority`, a new CA signs it and the configurations and CRDs trust only that CA from now
   * on: calls succeed again only once the server serves the new certificate.
   */
  async rotate(options: { newAuthority?: boolean } = {}): Promise<void> {
    if (options.newAuthority) await this.trustNewAuthority();
    await this.serving.rotate();
  }

  /**
   * Makes a new CA the only one the configurations and CRDs trust, without touching the files: until
   * the next {@link WebhookInstallation.rotate}, the server's certificate is refused.
   */
  async trustNewAuthority(): Promise<void> {
    await this.serving.replaceAuthority();
    await this.apply();
  }

  /** Deletes the configurations and the CRDs it installed, and its certificate folder. */
  async uninstall(): Promise<void> {
    const paths = [
      ...this.configurations.map(
        ({ resource, object }) => `${ADMISSION}/${resource}/${object.metadata?.name}`,
      ),
      ...this.crds.map(
        (crd) => `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${crd.metadata?.name}`,
      ),
    ];
    for (const path of paths) {
      const deleted = await kubeRequest(this.plane, 'DELETE', path);
      if (![200, 202, 404].includes(deleted.status)) {
        throw new Error(`deleting ${path}: ${deleted.status} ${JSON.stringify(deleted.body)}`);
      }
    }
    this.serving.remove();
  }

  /** Creates or replaces the configurations and installs the CRDs, pointing them at us. */
  private async apply(): Promise<void> {
    const caBundle = base64(this.serving.caPem);
    for (const { resource, object } of this.configurations) {
      for (const webhook of object.webhooks ?? []) {
        webhook.clientConfig = { url: this.url(pathOf(webhook.clientConfig)), caBundle };
      }
      await createOrReplace(this.plane, `${ADMISSION}/${resource}`, object);
    }
    for (const crd of this.crds) {
      const spec = (crd as { spec?: { conversion?: Record<string, unknown> } }).spec;
      const conversion = spec?.conversion as
        | { strategy?: string; webhook?: Record<string, unknown> }
        | undefined;
      if (conversion?.strategy !== 'Webhook') continue;
      const webhook = conversion.webhook ?? {};
      const path = pathOf(webhook.clientConfig as ClientConfig | undefined, '/convert');
      conversion.webhook = {
        conversionReviewVersions: webhook.conversionReviewVersions ?? ['v1'],
        clientConfig: { url: this.url(path), caBundle },
      };
    }
    if (this.crds.length > 0) await this.plane.installCRDs(this.crds);
  }
}

/**
 * Installs webhook configurations and CRD conversions that call a local webhook server, with a
 * certificate it generates. Start the server on `installation.port` with `installation.certDir`.
 *
 * @example
 * const hooks = await installWebhooks(plane, { mutating: ['deploy/webhooks.yaml'], namespace: env.namespace });
 * const manager = Manager.create({ kubeConfig, webhook: { host: hooks.host, port: hooks.port, certDir: hooks.certDir } });
 */
export function installWebhooks(
  plane: ControlPlane,
  options: WebhookInstallOptions,
): Promise<WebhookInstallation> {
  return WebhookInstallation.install(plane, options);
}

function pathOf(config: ClientConfig | undefined, fallback = '/'): string {
  if (config?.service?.path) return config.service.path;
  if (config?.url) return new URL(config.url).pathname;
  return fallback;
}

/** Restricts a configuration's webhooks to one namespace and makes its name unique to it. */
function scope(object: WebhookConfiguration, namespace: string | undefined): void {
  if (!namespace) return;
  object.metadata = { ...object.metadata, name: `${object.metadata?.name}-${namespace}` };
  for (const webhook of object.webhooks ?? []) {
    webhook.namespaceSelector = {
      matchExpressions: [{ key: 'kubernetes.io/metadata.name', operator: 'In', values: [namespace] }],
    };
  }
}

async function createOrReplace(
  plane: ControlPlane,
  collection: string,
  object: ManifestObject,
): Promise<void> {
  const name = object.metadata?.name;
  const created = await kubeRequest(plane, 'POST', collection, object);
  if (created.status === 201) return;
  if (created.status !== 409)
    throw new Error(`creating ${object.kind} ${name}: ${JSON.stringify(created.body)}`);
  const current = await kubeRequest(plane, 'GET', `${collection}/${name}`);
  const resourceVersion = (current.body as ManifestObject).metadata?.resourceVersion;
  const replaced = await kubeRequest(plane, 'PUT', `${collection}/${name}`, {
    ...object,
    metadata: { ...object.metadata, resourceVersion },
  });
  if (replaced.status !== 200)
    throw new Error(`replacing ${object.kind} ${name}: ${JSON.stringify(replaced.body)}`);
}

/** One JSON request with the plane's admin credentials. */
async function kubeRequest(
  plane: ControlPlane,
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; body: unknown }> {
  const options: import('node:https').RequestOptions = { method, timeout: 10_000 };
  await plane.kubeConfig.applyToHTTPSOptions(options);
  const payload = body === undefined ? undefined : JSON.stringify(body);
  options.headers = { ...options.headers, accept: 'application/json', 'content-type': 'application/json' };
  return new Promise((resolve, reject) => {
    const req = request(`${plane.server}${path}`, options, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString();
        let parsed: unknown = text;
        try {
          parsed = text ? JSON.parse(text) : undefined;
        } catch {}
        resolve({ status: res.statusCode ?? 0, body: parsed });
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    req.on('timeout', () => req.destroy(new Error(`${method} ${path}: timed out`)));
    req.end(payload);
  });
}
