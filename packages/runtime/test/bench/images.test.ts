/** The bench's image size rows: one per operator image, in MB, shown without a target. */
import { describe, expect, it } from 'vitest';
import { imageSizeRows } from '../../bench/images.js';
import { absoluteMet, formatTable } from '../../bench/table.js';

describe('image size rows', () => {
  it('shows each image in MB (10^6 bytes) with no target, and never fails the bench', () => {
    const rows = imageSizeRows([
      { name: 'agent', bytes: 123_950_000 },
      { name: 'greeting', bytes: 88_400_000 },
    ]);
    expect(rows.every(absoluteMet)).toBe(true);
    const lines = formatTable([], rows).split('\n');
    expect(lines[1]).toMatch(
      /^image agent\s+124 MB\s+size \(no target: stand-in base images: Debian bookworm/,
    );
    expect(lines[2]).toMatch(/^image greeting\s+88\.4 MB\s+size \(no target/);
  });
});
