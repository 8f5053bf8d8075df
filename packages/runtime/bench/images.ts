/**
 * The operators' image sizes (no target yet): each image built from its unchanged Dockerfile by
 * scripts/images/build-image.sh (podman, on the stand-in base images where no registry is
 * reachable: Debian plus this machine's Node.js), its size as `podman image inspect` reports it.
 */
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { loadBundler } from './bundler.js';
import type { AbsoluteRow } from './table.js';

/** The table's rows for measured sizes: MB (10^6 bytes), no target. */
export function imageSizeRows(sizes: ReadonlyArray<{ name: string; bytes: number }>): AbsoluteRow[] {
  return sizes.map(({ name, bytes }) => ({
    name: `image ${name}`,
    value: bytes / 1e6,
    unit: 'MB',
    goal: 'info',
    limit: 0,
    statistic: 'size',
    why: "stand-in base images: Debian bookworm + this machine's Node.js",
  }));
}

/** Builds every operator's image (cached layers make a warm run quick); returns the size rows. */
export async function measureImageSizes(log: (line: string) => void): Promise<AbsoluteRow[]> {
  const root = fileURLToPath(new URL('../../../../', import.meta.url));
  const { OPERATORS } = await loadBundler();
  const sizes = Object.entries(OPERATORS).map(([name, folder]) => {
    const tag = `ghcr.io/capstan-dev/${name}:0.1.0`;
    log(`building ${tag}`);
    execFileSync(`${root}scripts/images/build-image.sh`, [`${folder}/Dockerfile`, tag], {
      cwd: root,
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    const size = execFileSync('podman', ['image', 'inspect', '--format', '{{.Size}}', tag], {
      encoding: 'utf8',
    });
    return { name, bytes: Number(size.trim()) };
  });
  return imageSizeRows(sizes);
}
