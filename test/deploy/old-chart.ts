/**
 * The chart as an earlier commit had it, built from the repository's git history into a scratch
 * folder: `deploy/helm/capstan` at that commit plus the files its symbolic links name (the
 * operators' `deploy/` files), so Helm reads exactly what a release installed then was made of.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, posix } from 'node:path';
import { promisify } from 'node:util';
import { root } from '../packaging/packages.js';
import { CHART } from './chart.js';

const run = promisify(execFile);

async function git(args: string[]): Promise<string> {
  try {
    return (await run('git', args, { cwd: root, maxBuffer: 64 << 20 })).stdout;
  } catch (err) {
    throw new Error(
      `git ${args.join(' ')} failed (the old chart is built from this clone's history; a shallow ` +
        `clone lacks it: git fetch --unshallow): ${(err as { stderr?: string }).stderr ?? err}`,
    );
  }
}

/** The chart folder as `commit` had it, in a fresh scratch folder; returns the chart's path. */
export async function chartAt(commit: string): Promise<string> {
  await git(['cat-file', '-e', `${commit}^{commit}`]);
  // Symbolic links (mode 120000) and where each points, resolved against its own folder.
  const tree = await git(['ls-tree', '-r', '--full-tree', commit, CHART]);
  const linked: string[] = [];
  for (const line of tree.split('\n').filter(Boolean)) {
    const [meta, path] = line.split('\t') as [string, string];
    const [mode, , object] = meta.split(' ') as [string, string, string];
    if (mode !== '120000') continue;
    const target = (await git(['cat-file', '-p', object])).trim();
    linked.push(posix.normalize(posix.join(posix.dirname(path), target)));
  }
  const dir = mkdtempSync(join(tmpdir(), 'capstan-old-chart-'));
  const archive = join(dir, 'chart.tar');
  await git(['archive', '--format=tar', '-o', archive, commit, CHART, ...new Set(linked)]);
  await run('tar', ['-xf', archive, '-C', dir]);
  return join(dir, CHART);
}
