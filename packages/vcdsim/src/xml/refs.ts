/** Paths, URNs and references of legacy API objects. Hrefs are absolute, as VCD writes them. */
import { el } from './build.js';

export const urn = (kind: string, id: string): string => `urn:vcloud:${kind}:${id}`;

export const path = {
  org: (id: string) => `/api/org/${id}`,
  vdc: (id: string) => `/api/vdc/${id}`,
  catalog: (id: string) => `/api/catalog/${id}`,
  catalogItem: (id: string) => `/api/catalogItem/${id}`,
  template: (id: string) => `/api/vAppTemplate/vappTemplate-${id}`,
  templateVm: (id: string) => `/api/vAppTemplate/vm-${id}`,
  vapp: (id: string) => `/api/vApp/vapp-${id}`,
  vm: (id: string) => `/api/vApp/vm-${id}`,
  network: (id: string) => `/api/network/${id}`,
  storageProfile: (id: string) => `/api/vdcStorageProfile/${id}`,
  task: (id: string) => `/api/task/${id}`,
  disk: (id: string) => `/api/disk/${id}`,
  computePolicy: (id: string) => `/cloudapi/1.0.0/vdcComputePolicies/${urn('vdcComputePolicy', id)}`,
};

/** A `<Link rel type href/>` element. */
export const link = (base: string, rel: string, type: string | undefined, p: string, name?: string): string =>
  el('Link', { rel, href: `${base}${p}`, type, name });

/** A reference element (`<Owner>`, `<VAppParent>`, `<StorageProfile>`, ...). */
export const ref = (
  tag: string,
  base: string,
  type: string | undefined,
  p: string,
  name?: string,
  id?: string,
): string => el(tag, { href: `${base}${p}`, id, name, type });

const UUID = '[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}';

/** Pulls a UUID out of an href or URN of the given kind (e.g. `vm-<uuid>` paths, `urn:vcloud:vm:<uuid>`). */
export function idFrom(hrefOrUrn: string | undefined, pathPart: RegExp | string): string | undefined {
  if (!hrefOrUrn) return undefined;
  const prefix =
    typeof pathPart === 'string' ? pathPart.replace(/[.*+?^${}()|[\]\\]/g, '\\$&') : pathPart.source;
  const m = new RegExp(`${prefix}(${UUID})(?:[/?#]|$)`).exec(hrefOrUrn);
  return m?.[1]?.toLowerCase();
}

/** True for a well-formed UUID. */
export const isUuid = (s: string): boolean => new RegExp(`^${UUID}$`).test(s);
