/**
 * docs/install.md's Helm section as commands: the tests run what the page says, not a copy of it.
 * helm lines go to the real helm; the few kubectl lines the page has are done through the API
 * (kubectl is not built here), and any other kubectl line fails the test until it is taught here.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ControlPlane } from '../../packages/envtest/src/index.js';
import { root } from '../packaging/packages.js';

/** The `sh` blocks of the page's "With Helm" section, each as its commands (words split on spaces). */
export function helmSectionBlocks(): string[][][] {
  const page = readFileSync(join(root, 'docs/install.md'), 'utf8');
  const section = page.slice(
    page.indexOf('## With Helm'),
    page.indexOf('\n## ', page.indexOf('## With Helm') + 1),
  );
  return [...section.matchAll(/```sh\n([\s\S]*?)```/g)].map((block) =>
    (block[1] as string)
      .replace(/\\\n\s*/g, ' ')
      .split('\n')
      .map((line) => line.trim())
      .filter((line) => line && !line.startsWith('#'))
      .map((line) => line.split(/\s+/)),
  );
}

/**
 * The first block with a command starting with these words (a word `+x` instead: the command
 * also holds the word x somewhere).
 */
export function blockWith(...words: string[]): string[][] {
  const matches = (c: string[]) =>
    words.every((w, i) => (w.startsWith('+') ? c.includes(w.slice(1)) : c[i] === w));
  const block = helmSectionBlocks().find((b) => b.some(matches));
  if (!block) throw new Error(`docs/install.md's Helm section has no block with "${words.join(' ')}"`);
  return block;
}

/** Does one of the page's kubectl commands through the API server, as kubectl would. */
export async function kubectl(plane: ControlPlane, words: string[]): Promise<void> {
  const [verb, kind, name, ...rest] = words.slice(1);
  const ok = (answer: { status: number; body: unknown }) => {
    if (answer.status >= 300) throw new Error(`${words.join(' ')}: ${JSON.stringify(answer.body)}`);
  };
  if (verb === 'create' && kind === 'namespace' && rest.length === 0)
    return ok(await plane.request('POST', '/api/v1/namespaces', { metadata: { name } }));
  // `kubectl label|annotate <kind> <name>... key=value...`, as a merge patch of each object.
  const metadataOf = async (path: string) => {
    const names = [name, ...rest.filter((w) => !w.includes('='))];
    const pairs = Object.fromEntries(
      rest
        .filter((w) => w.includes('='))
        .map((w) => [w.slice(0, w.indexOf('=')), w.slice(w.indexOf('=') + 1)]),
    );
    const field = verb === 'label' ? 'labels' : 'annotations';
    for (const n of names)
      ok(
        await plane.request(
          'PATCH',
          `${path}/${n}`,
          { metadata: { [field]: pairs } },
          'application/merge-patch+json',
        ),
      );
  };
  if (verb === 'label' && kind === 'namespace') return metadataOf('/api/v1/namespaces');
  if ((verb === 'label' || verb === 'annotate') && kind === 'crd')
    return metadataOf('/apis/apiextensions.k8s.io/v1/customresourcedefinitions');
  if (verb === 'delete' && kind === 'namespace' && rest.length === 0)
    return ok(await plane.request('DELETE', `/api/v1/namespaces/${name}`));
  if (verb === 'delete' && kind === 'crd') {
    for (const crd of [name, ...rest])
      ok(await plane.request('DELETE', `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${crd}`));
    return;
  }
  throw new Error(`the install test does not know "${words.join(' ')}": teach test/deploy/install-doc.ts`);
}
