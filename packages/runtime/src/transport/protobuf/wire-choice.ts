/**
 * Which encoding the transport asks for, kind by kind: protobuf for a built-in kind when the
 * server is no newer than the schema's Kubernetes release, JSON otherwise.
 *
 * A newer server may send fields the schema lacks, and protobuf cannot name them: decoding would
 * drop them, and an update of the object read would erase them on the server. JSON keeps every
 * field, so that is what a newer server gets, as does a kind whose protobuf could not be read.
 */

import { apiVersionOf, type KubeObject, type ResourceType } from '../../api/types.js';
import type { Clock } from '../../clock.js';
import type { WatchCallbacks } from '../transport.js';
import { PROTOBUF_MEDIA_TYPE } from './envelope.js';
import { BUILTIN_KUBERNETES_VERSION } from './generated/schema.js';
import { hasProtobuf } from './schema.js';
import { ProtobufDecodeError } from './wire.js';

/** The Accept header of JSON only. */
export const JSON_ONLY = 'application/json';
const PROTOBUF_OR_JSON = `${PROTOBUF_MEDIA_TYPE}, application/json`;
/** Metadata only: the server answers `PartialObjectMetadata` (a watch's events too) or its list. */
const METADATA = 'application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1';
const METADATA_LIST = 'application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1';

/** After a failed `/version`, how long JSON is used before asking again. */
const RECHECK_MS = 60_000;

/** `major.minor` of a `/version` answer (`gitVersion` `v1.35.4`, or `major`/`minor` `1`/`35+`). */
export function serverRelease(answer: unknown): [number, number] | undefined {
  const { gitVersion, major, minor } = (answer ?? {}) as Record<string, unknown>;
  const git = typeof gitVersion === 'string' ? /^v(\d+)\.(\d+)/.exec(gitVersion) : null;
  if (git) return [Number(git[1]), Number(git[2])];
  const ma = typeof major === 'string' ? /^\d+/.exec(major) : null;
  const mi = typeof minor === 'string' ? /^\d+/.exec(minor) : null;
  return ma && mi ? [Number(ma[0]), Number(mi[0])] : undefined;
}

/** Whether a server of `release` sends only fields the schema knows. */
export function schemaCovers(release: [number, number], schema = BUILTIN_KUBERNETES_VERSION): boolean {
  const [major, minor] = schema.split('.').map(Number) as [number, number];
  return release[0] < major || (release[0] === major && release[1] <= minor);
}

/** The transport's choice of encoding; one per transport (one server). */
export class WireChoice {
  private covered: Promise<boolean> | undefined;
  private checkedAt = 0;
  private readonly refused = new Set<string>();

  /**
   * @param enabled protobuf at all (the transport's `protobuf` option).
   * @param fetchVersion the server's `/version` answer.
   */
  constructor(
    private readonly enabled: boolean,
    private readonly fetchVersion: () => Promise<unknown>,
    private readonly clock: Clock,
  ) {}

  /** The Accept header of a request about objects of `type` (`list`: a list of them). */
  async accept(type: ResourceType, list = false): Promise<string> {
    if (type.metadataOnly) return list ? METADATA_LIST : METADATA;
    const apiVersion = apiVersionOf(type);
    if (
      !this.enabled ||
      !hasProtobuf(apiVersion, type.kind) ||
      this.refused.has(`${apiVersion}/${type.kind}`)
    )
      return JSON_ONLY;
    return (await this.serverCovered()) ? PROTOBUF_OR_JSON : JSON_ONLY;
  }

  /** The protobuf of `type` could not be read: JSON for that kind from now on. */
  refuse(type: ResourceType): void {
    this.refused.add(`${apiVersionOf(type)}/${type.kind}`);
  }

  /** `callbacks`, also sending the kind to JSON when the watch ends on unreadable protobuf. */
  watching<T extends KubeObject>(type: ResourceType, callbacks: WatchCallbacks<T>): WatchCallbacks<T> {
    return {
      onEvent: (event) => callbacks.onEvent(event),
      onClose: (error) => {
        if (error?.cause instanceof ProtobufDecodeError) this.refuse(type);
        callbacks.onClose(error);
      },
      ...(callbacks.omitManagedFields === undefined
        ? {}
        : { omitManagedFields: callbacks.omitManagedFields }),
    };
  }

  private serverCovered(): Promise<boolean> {
    if (
      this.covered === undefined ||
      (this.checkedAt > 0 && this.clock.now() - this.checkedAt >= RECHECK_MS)
    ) {
      this.checkedAt = 0;
      this.covered = this.fetchVersion().then(
        (answer) => {
          const release = serverRelease(answer);
          if (release === undefined) this.checkedAt = this.clock.now();
          return release !== undefined && schemaCovers(release);
        },
        () => {
          this.checkedAt = this.clock.now();
          return false;
        },
      );
    }
    return this.covered;
  }
}
