/**
 * Conversions between CAPVCD's older versions (v1beta2, v1beta1) and ours (v1beta3, the hub and
 * storage version), served by the runtime's conversion webhook. Fields both hold are copied; the
 * rest travels in the `capvcd.capstan.dev/conversion-data` annotation, so nothing is lost either
 * way. Two values change shape: Cluster API v1beta1 conditions (with severity) against
 * `metav1.Condition`s, and CAPVCD's always-written `controlPlaneEndpoint` ({host: "", port: 0}
 * means unset) against ours (absent).
 */
import {
  type ConversionScheme,
  defineConversion,
  type PathTransform,
  schemaSpoke,
} from '@capstan/runtime/webhook';
import { customResourceDefinitions } from './crds.js';
import { CONVERSION_DATA_ANNOTATION, GROUP, VERSION } from './keys.js';

type Json = Record<string, unknown>;
type Properties = Record<string, Json>;

/** A Cluster API v1beta1 condition, as CAPVCD's v1beta2 status holds it. */
interface V1beta1Condition {
  type: string;
  status: string;
  severity?: string;
  reason?: string;
  message?: string;
  lastTransitionTime?: string;
}

interface HubCondition {
  type: string;
  status: string;
  reason: string;
  message: string;
  lastTransitionTime: string;
  observedGeneration?: number;
}

const EPOCH = '1970-01-01T00:00:00Z';

/** Conditions: severity is dropped (kept by the annotation), reason and message default to "". */
export const conditionsTransform = (path: string[]): PathTransform => ({
  path,
  toHub: (v) =>
    (v as V1beta1Condition[]).map(
      (c): HubCondition => ({
        type: c.type,
        status: c.status,
        reason: c.reason ?? '',
        message: c.message ?? '',
        lastTransitionTime: c.lastTransitionTime ?? EPOCH,
      }),
    ),
  fromHub: (v) =>
    (v as HubCondition[]).map(
      (c): V1beta1Condition => ({
        type: c.type,
        status: c.status,
        // Cluster API v1beta1 gives a severity to False conditions only.
        ...(c.status === 'False' ? { severity: 'Warning' } : {}),
        lastTransitionTime: c.lastTransitionTime,
        ...(c.reason ? { reason: c.reason } : {}),
        ...(c.message ? { message: c.message } : {}),
      }),
    ),
});

/** CAPVCD's endpoint: an empty host and port 0 are its "unset". */
export const endpointTransform = (path: string[]): PathTransform => ({
  path,
  toHub: (v) => {
    const { host, port } = v as { host?: string; port?: number };
    const endpoint = { ...(host ? { host } : {}), ...(port ? { port } : {}) };
    return Object.keys(endpoint).length > 0 ? endpoint : undefined;
  },
  fromHub: (v) => v,
});

const TRANSFORMS: Record<string, PathTransform[]> = {
  VCDCluster: [
    endpointTransform(['spec', 'controlPlaneEndpoint']),
    conditionsTransform(['status', 'conditions']),
  ],
  VCDMachine: [conditionsTransform(['status', 'conditions'])],
  VCDClusterTemplate: [endpointTransform(['spec', 'template', 'spec', 'controlPlaneEndpoint'])],
};

/** The root properties of each version of a CRD. */
function versionsOf(crd: Json): Record<string, Properties> {
  const versions = (crd.spec as { versions: Array<{ name: string; schema: { openAPIV3Schema: Json } }> })
    .versions;
  return Object.fromEntries(versions.map((v) => [v.name, v.schema.openAPIV3Schema.properties as Properties]));
}

/** The conversion of every kind that serves CAPVCD's older versions. */
export function conversionSchemes(): ConversionScheme[] {
  return customResourceDefinitions()
    .filter((crd) => (crd.spec as Json).conversion !== undefined)
    .map((crd) => {
      const kind = ((crd.spec as Json).names as { kind: string }).kind;
      const { [VERSION]: hub, ...older } = versionsOf(crd);
      const spokes = Object.fromEntries(
        Object.entries(older).map(([version, spoke]) => [
          version,
          schemaSpoke({
            hub: hub as Properties,
            spoke,
            annotation: CONVERSION_DATA_ANNOTATION,
            transforms: TRANSFORMS[kind] ?? [],
          }),
        ]),
      );
      return defineConversion({ group: GROUP, kind, hub: VERSION, spokes });
    });
}
