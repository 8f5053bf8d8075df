/**
 * Whether a directory the agent reads can be the host's, from `/proc/self/mountinfo`: inside a
 * container a path that no volume covers lies on the container's own root filesystem (an
 * overlay of the image), where a host file never appears: a sentinel file that silently never
 * fires. On a host the root filesystem is not an overlay, and nothing is said.
 */
import { readFile } from 'node:fs/promises';

/** Where Linux lists this process's mounts. */
export const MOUNTINFO_PATH = '/proc/self/mountinfo';

/** One mount of a mountinfo text. */
export interface MountEntry {
  /** Field 5, octal escapes such as `\040` decoded. */
  point: string;
  /** The filesystem type, after the ` - ` separator. */
  type: string;
}

const decodeOctal = (field: string) =>
  field.replace(/\\([0-7]{3})/g, (_, oct: string) => String.fromCharCode(Number.parseInt(oct, 8)));

/** The mounts of a mountinfo text; malformed lines are skipped. */
export function parseMountInfo(mountinfo: string): MountEntry[] {
  const mounts: MountEntry[] = [];
  for (const line of mountinfo.split('\n')) {
    const [before, after] = line.split(' - ');
    const point = before?.split(' ')[4];
    const type = after?.split(' ')[0];
    if (point && type) mounts.push({ point: decodeOctal(point), type });
  }
  return mounts;
}

/** The mount `path` (absolute, resolved) lies on: the longest mount point containing it (the last one mounted wins a tie). */
export function mountOf(path: string, mounts: readonly MountEntry[]): MountEntry | undefined {
  let best: MountEntry | undefined;
  for (const m of mounts) {
    const inside = m.point === '/' || path === m.point || path.startsWith(`${m.point}/`);
    if (inside && (best === undefined || m.point.length >= best.point.length)) best = m;
  }
  return best;
}

/**
 * Why `dir` (absolute, resolved) cannot be the host's, or undefined when it lies on a volume,
 * on a host's root filesystem, or mountinfo cannot be read (outside Linux: nothing to tell).
 */
export async function notAHostMount(
  dir: string,
  mountInfoPath = MOUNTINFO_PATH,
): Promise<string | undefined> {
  let text: string;
  try {
    text = await readFile(mountInfoPath, 'utf8');
  } catch {
    return undefined;
  }
  const mount = mountOf(dir, parseMountInfo(text));
  return mount?.point === '/' && mount.type === 'overlay'
    ? `${dir} lies on the container's own filesystem (no volume is mounted there)`
    : undefined;
}
