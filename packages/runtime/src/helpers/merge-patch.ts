/**
 * Merge patches that apply only to the version of an object they were computed from.
 *
 * A JSON merge patch carrying `metadata.resourceVersion` is refused with 409 Conflict when the
 * object changed since it was read: a decision made from a stale read never lands, the caller
 * reads again and decides again. This is how controllers that edit objects they do not own
 * (annotations on a Node) keep their writes safe without a full update.
 */

/** Annotation and label edits: a string sets the key, `null` removes it. */
export interface MetadataEdits {
  annotations?: Readonly<Record<string, string | null>>;
  labels?: Readonly<Record<string, string | null>>;
}

/**
 * The merge patch body that applies `edits` (and `extra`, merged beside `metadata`, e.g. a
 * `spec` part) only if the object is still at `resourceVersion`. Empty annotation or label maps
 * are left out, so the body stays minimal.
 * @param resourceVersion the version the edits were computed from; `undefined` drops the precondition.
 */
export function conditionalMergePatch(
  resourceVersion: string | undefined,
  edits: MetadataEdits,
  extra: Readonly<Record<string, unknown>> = {},
): Record<string, unknown> {
  const metadata: Record<string, unknown> = {};
  if (resourceVersion !== undefined) metadata.resourceVersion = resourceVersion;
  if (edits.annotations && Object.keys(edits.annotations).length > 0)
    metadata.annotations = edits.annotations;
  if (edits.labels && Object.keys(edits.labels).length > 0) metadata.labels = edits.labels;
  return { metadata, ...extra };
}
