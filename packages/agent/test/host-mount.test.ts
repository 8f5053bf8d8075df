/** Reading /proc/self/mountinfo to tell a volume from the container's own filesystem. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type MountEntry, mountOf, parseMountInfo } from '../src/sources/host-mount.js';

describe('mountinfo', () => {
  it('parses mount points (octal escapes decoded) and filesystem types, skipping garbage', () => {
    const text = [
      '36 35 98:0 /mnt1 /mnt\\040two rw,noatime master:1 - ext3 /dev/root rw,errors=continue',
      '700 600 0:50 / / rw - overlay overlay rw',
      'garbage',
      '',
    ].join('\n');
    expect(parseMountInfo(text)).toEqual([
      { point: '/mnt two', type: 'ext3' },
      { point: '/', type: 'overlay' },
    ]);
  });

  it('property: a path lies on the longest mount point containing it, the root at worst', () => {
    const segment = fc.constantFrom('run', 'host', 'var', 'a', 'ab');
    const pathArb = fc.array(segment, { minLength: 0, maxLength: 4 }).map((s) => `/${s.join('/')}`);
    fc.assert(
      fc.property(pathArb, fc.array(pathArb, { maxLength: 6 }), (path, points) => {
        const mounts: MountEntry[] = [
          { point: '/', type: 'overlay' },
          ...points.map((point) => ({ point, type: 'tmpfs' })),
        ];
        const found = mountOf(path, mounts);
        const contains = (p: string) => p === '/' || path === p || path.startsWith(`${p}/`);
        expect(found && contains(found.point)).toBe(true);
        for (const m of mounts)
          if (contains(m.point)) expect(m.point.length).toBeLessThanOrEqual(found?.point.length ?? 0);
        // "/ab" is not inside "/a".
        if (found && found.point !== '/')
          expect(path === found.point || path[found.point.length] === '/').toBe(true);
      }),
    );
  });
});
