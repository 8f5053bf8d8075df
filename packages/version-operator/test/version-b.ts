/**
 * A test version "0.2.0" whose manifests differ from the current version's: built from the same
 * deploy/ files (the one source of truth), with new image tags, one more coordinator flag default,
 * and without the coordinator's Service, which an upgrade must prune.
 */
import {
  type Catalogue,
  type CatalogueEntry,
  currentEntry,
  type Manifest,
  shippedCatalogue,
} from '../src/index.js';

export const VERSION_A = currentEntry().version;
export const VERSION_B = '0.2.0';

function retag(manifests: readonly Manifest[], tag: string, extraArg?: string): Manifest[] {
  return manifests.map((m) => {
    const copy = structuredClone(m);
    if (copy.kind === 'Deployment' || copy.kind === 'DaemonSet') {
      const containers = (
        copy as unknown as {
          spec: { template: { spec: { containers: Array<{ image: string; args?: string[] }> } } };
        }
      ).spec.template.spec.containers;
      for (const c of containers) {
        c.image = c.image.replace(/:[^:/]+$/, `:${tag}`);
        if (extraArg) c.args = [...(c.args ?? []), extraArg];
      }
    }
    return copy;
  });
}

/** Version B's entry. */
export function versionB(): CatalogueEntry {
  const a = currentEntry();
  return {
    ...a,
    version: VERSION_B,
    manifests: {
      coordinator: retag(a.manifests.coordinator, VERSION_B, '--resync-period=20s').filter(
        (m) => m.kind !== 'Service',
      ),
      agent: retag(a.manifests.agent, VERSION_B),
    },
    upgradesFrom: [VERSION_A],
  };
}

/** The shipped catalogue plus version B. */
export function catalogueWithB(): Catalogue {
  return shippedCatalogue().with(versionB());
}
