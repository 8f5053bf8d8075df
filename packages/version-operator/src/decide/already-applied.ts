/**
 * Whether a manifest is already applied, so a converged stack is left alone instead of being
 * applied again on every reconcile (each apply is a write request the API server admits, even
 * when it changes nothing). Each applied manifest carries the hash of what was rendered: a
 * manifest that changed, lost a field (which only an apply removes) or was edited by someone else
 * is applied again. Pure.
 */
import { createHash } from 'node:crypto';
import { OPERATOR_API_GROUP } from '../api/reboot-stack.js';
import type { Manifest } from '../catalogue.js';

/** The annotation holding the hash of the manifest last applied to an object. */
export const MANIFEST_HASH_ANNOTATION = `${OPERATOR_API_GROUP}/manifest-hash`;

/** `manifest` with the hash of its content in {@link MANIFEST_HASH_ANNOTATION}. */
export function withManifestHash(manifest: Manifest): Manifest {
  const current = (manifest.metadata.annotations ?? {}) as Record<string, string>;
  const { [MANIFEST_HASH_ANNOTATION]: _old, ...annotations } = current;
  const unstamped = { ...manifest, metadata: { ...manifest.metadata, annotations } };
  const hash = createHash('sha256').update(JSON.stringify(unstamped)).digest('hex').slice(0, 16);
  return {
    ...manifest,
    metadata: { ...manifest.metadata, annotations: { ...annotations, [MANIFEST_HASH_ANNOTATION]: hash } },
  };
}

/**
 * Whether `have` holds every field of `want` with the same value: objects key by key (extra
 * keys in `have`, the server's defaults and status, are allowed), lists item by item and of the
 * same length, scalars equal.
 */
export function holds(want: unknown, have: unknown): boolean {
  if (Array.isArray(want))
    return Array.isArray(have) && have.length === want.length && want.every((w, i) => holds(w, have[i]));
  if (want !== null && typeof want === 'object') {
    if (have === null || typeof have !== 'object' || Array.isArray(have)) return false;
    const h = have as Record<string, unknown>;
    return Object.entries(want).every(([key, w]) => holds(w, h[key]));
  }
  return want === have;
}
