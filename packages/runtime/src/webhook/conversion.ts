/**
 * CRD conversion, hub and spoke (as controller-runtime's `conversion.Hub` / `Convertible`): one
 * version of a kind is the hub, every other version (a spoke) converts to and from it, so n
 * versions need 2(n-1) functions, not n(n-1). A spoke-to-spoke request goes through the hub.
 *
 * The API server lets a conversion change nothing in `metadata` but labels and annotations (where a
 * spoke may stash fields it cannot hold, to survive a round trip): the converter keeps the rest of
 * the metadata from the object it was given, whatever the spoke returns.
 */
import type { KubeObject, UnstructuredObject } from '../api/types.js';

/** One non-hub version: how its objects become hub objects and back. */
export interface Spoke<Hub extends KubeObject = KubeObject, S extends KubeObject = KubeObject> {
  /** Gets a copy of a spoke object; returns the hub object (apiVersion and kind are set for you). */
  toHub(object: S): Hub;
  /** Gets a copy of a hub object; returns this version's object. */
  fromHub(hub: Hub): S;
}

/** The versions of one kind. */
export interface ConversionScheme<Hub extends KubeObject = KubeObject> {
  group: string;
  kind: string;
  /** The hub version, usually the storage version. */
  hub: string;
  // biome-ignore lint/suspicious/noExplicitAny: each spoke has its own object type
  spokes: Record<string, Spoke<Hub, any>>;
}

/** A conversion that cannot be done; answered as a `Failure` result with this message. */
export class ConversionError extends Error {
  override readonly name = 'ConversionError';
}

/** Declares a scheme, checking that the hub is not also a spoke. */
export function defineConversion<Hub extends KubeObject>(
  scheme: ConversionScheme<Hub>,
): ConversionScheme<Hub> {
  if (Object.hasOwn(scheme.spokes, scheme.hub)) {
    throw new Error(`${scheme.kind}.${scheme.group}: the hub version ${scheme.hub} cannot also be a spoke`);
  }
  return scheme;
}

function splitApiVersion(apiVersion: string): { group: string; version: string } {
  const slash = apiVersion.lastIndexOf('/');
  return slash < 0
    ? { group: '', version: apiVersion }
    : { group: apiVersion.slice(0, slash), version: apiVersion.slice(slash + 1) };
}

/** The object's metadata with only labels and annotations taken from what a spoke returned. */
function keepMetadata(source: KubeObject, converted: KubeObject): KubeObject['metadata'] {
  const metadata = { ...source.metadata };
  delete metadata.labels;
  delete metadata.annotations;
  const { labels, annotations } = converted.metadata ?? {};
  if (labels && Object.keys(labels).length > 0) metadata.labels = labels;
  if (annotations && Object.keys(annotations).length > 0) metadata.annotations = annotations;
  return metadata;
}

/**
 * Converts `object` to `desiredAPIVersion` through the hub. An object already at that version is
 * returned as it is. Throws {@link ConversionError} for a version the scheme does not know.
 */
export function convert(
  scheme: ConversionScheme,
  object: KubeObject,
  desiredAPIVersion: string,
): UnstructuredObject {
  const from = splitApiVersion(object.apiVersion ?? '');
  const to = splitApiVersion(desiredAPIVersion);
  const name = `${scheme.kind}.${scheme.group}`;
  if (from.group !== scheme.group || to.group !== scheme.group || object.kind !== scheme.kind) {
    throw new ConversionError(
      `${name} cannot convert ${object.kind} ${object.apiVersion} to ${desiredAPIVersion}`,
    );
  }
  if (from.version === to.version) return object;
  const known = [scheme.hub, ...Object.keys(scheme.spokes)];
  for (const version of [from.version, to.version]) {
    if (!known.includes(version)) {
      throw new ConversionError(`${name} has no version ${version} (known: ${known.join(', ')})`);
    }
  }
  const stamp = (o: KubeObject, version: string): KubeObject => ({
    ...o,
    apiVersion: `${scheme.group}/${version}`,
    kind: scheme.kind,
    metadata: keepMetadata(object, o),
  });
  const hub =
    from.version === scheme.hub
      ? object
      : stamp((scheme.spokes[from.version] as Spoke).toHub(structuredClone(object)), scheme.hub);
  if (to.version === scheme.hub) return hub;
  return stamp((scheme.spokes[to.version] as Spoke).fromHub(structuredClone(hub)), to.version);
}

/** Finds the scheme for each object by group and kind, so one `/convert` path serves every kind. */
export class ConversionRegistry {
  private readonly schemes = new Map<string, ConversionScheme>();

  add(scheme: ConversionScheme): void {
    const key = `${scheme.kind}.${scheme.group}`;
    if (this.schemes.has(key)) throw new Error(`a conversion for ${key} is registered already`);
    this.schemes.set(key, scheme);
  }

  get size(): number {
    return this.schemes.size;
  }

  /** Converts every object, or throws {@link ConversionError} naming the first that cannot be. */
  convertAll(objects: KubeObject[], desiredAPIVersion: string): KubeObject[] {
    return objects.map((object) => {
      const { group } = splitApiVersion(object.apiVersion ?? '');
      const scheme = this.schemes.get(`${object.kind}.${group}`);
      if (!scheme) {
        const known = [...this.schemes.keys()].join(', ') || 'none';
        throw new ConversionError(
          `no conversion is registered for ${object.kind}.${group} (registered: ${known})`,
        );
      }
      return convert(scheme, object, desiredAPIVersion);
    });
  }
}
