/**
 * A test kind with two versions that hold the same thing differently, and a field only the newer
 * one has: Beacon v1alpha1 (`spec.host`, `spec.port`) and v1, the hub and storage version
 * (`spec.address.{host,port}`, `spec.protocol`). v1alpha1 keeps v1's protocol in an annotation, so
 * a v1 object survives a round trip through v1alpha1.
 */
import { defineResource, type KubeObject } from '@capstan/runtime';
import { defineConversion } from '@capstan/runtime/webhook';

export const GROUP = 'conversion.test.capstan.dev';
export const PROTOCOL_ANNOTATION = `${GROUP}/protocol`;

export interface BeaconV1alpha1 extends KubeObject {
  spec: { host: string; port: number };
}
export interface BeaconV1 extends KubeObject {
  spec: { address: { host: string; port: number }; protocol?: 'tcp' | 'udp' };
}

const type = { group: GROUP, kind: 'Beacon', plural: 'beacons', namespaced: true } as const;
export const BeaconV1alpha1Type = defineResource<BeaconV1alpha1>({ ...type, version: 'v1alpha1' });
export const BeaconV1Type = defineResource<BeaconV1>({ ...type, version: 'v1' });

export const beaconConversion = defineConversion<BeaconV1>({
  group: GROUP,
  kind: 'Beacon',
  hub: 'v1',
  spokes: {
    v1alpha1: {
      toHub(object: BeaconV1alpha1): BeaconV1 {
        const annotations = { ...object.metadata.annotations };
        const protocol = annotations[PROTOCOL_ANNOTATION];
        delete annotations[PROTOCOL_ANNOTATION];
        return {
          metadata: { ...object.metadata, annotations },
          spec: {
            address: { host: object.spec.host, port: object.spec.port },
            ...(protocol === 'tcp' || protocol === 'udp' ? { protocol } : {}),
          },
        };
      },
      fromHub(hub: BeaconV1): BeaconV1alpha1 {
        const annotations = { ...hub.metadata.annotations };
        if (hub.spec.protocol) annotations[PROTOCOL_ANNOTATION] = hub.spec.protocol;
        return {
          metadata: { ...hub.metadata, annotations },
          spec: { host: hub.spec.address.host, port: hub.spec.address.port },
        };
      },
    },
  },
});

const address = {
  type: 'object',
  required: ['host', 'port'],
  properties: { host: { type: 'string' }, port: { type: 'integer' } },
};

/** The CRD, conversion through a webhook service as controller-gen writes it (envtest rewrites it). */
export const beaconCrd = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: `beacons.${GROUP}` },
  spec: {
    group: GROUP,
    scope: 'Namespaced',
    names: { plural: 'beacons', singular: 'beacon', kind: 'Beacon', listKind: 'BeaconList' },
    conversion: {
      strategy: 'Webhook',
      webhook: {
        conversionReviewVersions: ['v1'],
        clientConfig: { service: { name: 'webhook-service', namespace: 'system', path: '/convert' } },
      },
    },
    versions: [
      {
        name: 'v1alpha1',
        served: true,
        storage: false,
        schema: { openAPIV3Schema: { type: 'object', properties: { spec: address } } },
      },
      {
        name: 'v1',
        served: true,
        storage: true,
        schema: {
          openAPIV3Schema: {
            type: 'object',
            properties: {
              spec: {
                type: 'object',
                required: ['address'],
                properties: { address, protocol: { type: 'string', enum: ['tcp', 'udp'] } },
              },
            },
          },
        },
      },
    ],
  },
};
