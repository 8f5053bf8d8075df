/**
 * The CustomResourceDefinition of a test's own kind, from the kind itself: tests declare a small
 * kind (a Gizmo, a Lamp) with `defineResource` and install this, rather than spell the CRD out.
 */

/** What a CRD needs of a kind: a runtime `ResourceType` fits. */
export interface TestKind {
  group: string;
  version: string;
  kind: string;
  plural: string;
  namespaced: boolean;
}

/** How the test kind is served. */
export interface TestCrdOptions {
  /** Serve the status subresource (status written only through it). Default true. */
  status?: boolean;
  /** The version's `openAPIV3Schema`. Default: any object (`x-kubernetes-preserve-unknown-fields`). */
  schema?: Record<string, unknown>;
}

/**
 * A CustomResourceDefinition object, as `ControlPlane.installCRDs` and the API server take it (a
 * type alias, so a client's open-ended CRD type accepts it).
 */
export type TestCrd = {
  apiVersion: 'apiextensions.k8s.io/v1';
  kind: 'CustomResourceDefinition';
  metadata: { name: string; labels?: Record<string, string> };
  spec: {
    group: string;
    scope: 'Namespaced' | 'Cluster';
    names: { plural: string; singular: string; kind: string; listKind: string };
    versions: Array<{
      name: string;
      served: boolean;
      storage: boolean;
      subresources?: { status: Record<string, never> };
      schema: { openAPIV3Schema: Record<string, unknown> };
    }>;
  };
};

/** The CRD that serves `kind` (one version, stored), with a status subresource unless told not to. */
export function testCrd(kind: TestKind, options: TestCrdOptions = {}): TestCrd {
  const schema = options.schema ?? { type: 'object', 'x-kubernetes-preserve-unknown-fields': true };
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${kind.plural}.${kind.group}` },
    spec: {
      group: kind.group,
      scope: kind.namespaced ? 'Namespaced' : 'Cluster',
      names: {
        plural: kind.plural,
        singular: kind.kind.toLowerCase(),
        kind: kind.kind,
        listKind: `${kind.kind}List`,
      },
      versions: [
        {
          name: kind.version,
          served: true,
          storage: true,
          ...(options.status === false ? {} : { subresources: { status: {} } }),
          schema: { openAPIV3Schema: schema },
        },
      ],
    },
  };
}
