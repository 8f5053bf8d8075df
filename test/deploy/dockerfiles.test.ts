/**
 * The operators' Dockerfiles, as far as a machine without a container engine can check them: they
 * parse and pass dockerfile-utils' validator (the one behind VS Code's Docker support), build in
 * two stages, copy the bundled entry point, start Node with the options the package names (the
 * agent's lite mode, the coordinator's semi-spaces), and run as the manifests expect (the
 * coordinator as the non-root uid its Deployment names, the agent as root for the host bus); the
 * manifests name the images by one scheme. No image is built here.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { validate } from 'dockerfile-utils';
import { describe, expect, it } from 'vitest';
import { AGENT_NODE_OPTIONS } from '../../packages/agent/src/image.js';
import { COORDINATOR_NODE_OPTIONS } from '../../packages/coordinator/src/image.js';
import { readManifests } from '../../packages/envtest/src/index.js';
import { root } from '../packaging/packages.js';

/** `nodeOptions`: what the package says its image starts Node with (`image.ts`). */
const OPERATORS = [
  {
    name: 'coordinator',
    folder: 'packages',
    manifest: 'coordinator.yaml',
    user: '65532:65532',
    nodeOptions: COORDINATOR_NODE_OPTIONS,
  },
  {
    name: 'agent',
    folder: 'packages',
    manifest: 'daemonset.yaml',
    user: '0:0',
    nodeOptions: AGENT_NODE_OPTIONS,
  },
  {
    name: 'version-operator',
    folder: 'packages',
    manifest: 'operator.yaml',
    user: '65532:65532',
    nodeOptions: [],
  },
  { name: 'capvcd', folder: 'packages', manifest: 'manager.yaml', user: '65532:65532', nodeOptions: [] },
  { name: 'greeting', folder: 'examples', manifest: 'controller.yaml', user: '65532:65532', nodeOptions: [] },
] as const;

interface PodSpec {
  securityContext?: { runAsUser?: number };
  containers: Array<{
    image: string;
    command?: string[];
    securityContext?: { runAsUser?: number; readOnlyRootFilesystem?: boolean };
  }>;
}

describe.each(OPERATORS)('$folder/$name/Dockerfile', ({ name, folder, manifest, user, nodeOptions }) => {
  const text = readFileSync(join(root, folder, name, 'Dockerfile'), 'utf8');
  const instructions = text
    .split('\n')
    .filter((l) => /^[A-Z]+\s/.test(l))
    .map((l) => l.trim());

  it('passes the validator with no problem', () => {
    expect(validate(text).map((d) => `${d.range.start.line + 1}: ${d.message}`)).toEqual([]);
  });

  it('builds in two stages and ships the bundle, its source map and package.json', () => {
    expect(instructions.filter((i) => i.startsWith('FROM '))).toHaveLength(2);
    expect(instructions).toContain(
      `COPY --from=build /src/${folder}/${name}/dist/main.bundle.mjs /app/${name}.mjs`,
    );
    // Where the bundle's `sourceMappingURL` (its own file name, main.bundle.mjs.map) points.
    expect(instructions).toContain(
      `COPY --from=build /src/${folder}/${name}/dist/main.bundle.mjs.map /app/main.bundle.mjs.map`,
    );
    expect(instructions).toContain(`COPY --from=build /src/${folder}/${name}/package.json /app/package.json`);
    const entrypoint = ['/nodejs/bin/node', ...nodeOptions, `/app/${name}.mjs`];
    expect(instructions).toContain(`ENTRYPOINT [${entrypoint.map((a) => JSON.stringify(a)).join(', ')}]`);
    expect(instructions).toContain(`USER ${user}`);
  });

  it('is the image its manifest runs, with the entry point (no command override) and the same user', () => {
    const [workload] = readManifests(join(root, folder, name, 'deploy', manifest)).filter(
      (o) => o.kind === 'Deployment' || o.kind === 'DaemonSet',
    );
    const pod = (workload as unknown as { spec: { template: { spec: PodSpec } } }).spec.template.spec;
    const container = pod.containers[0]!;
    expect(container.image).toBe(`ghcr.io/capstan-dev/${name}:${readManifestVersion(folder, name)}`);
    expect(container.command).toBeUndefined();
    const uid = container.securityContext?.runAsUser ?? pod.securityContext?.runAsUser;
    expect(String(uid)).toBe(user.split(':')[0]);
    expect(container.securityContext?.readOnlyRootFilesystem).toBe(true);
  });
});

function readManifestVersion(folder: string, name: string): string {
  return (JSON.parse(readFileSync(join(root, folder, name, 'package.json'), 'utf8')) as { version: string })
    .version;
}
