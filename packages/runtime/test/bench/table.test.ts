/**
 * The bench's table marks a row that misses its target, and shows rows without a target (where a
 * targeted figure goes) as such, never as missed.
 */
import { describe, expect, it } from 'vitest';
import {
  type AbsoluteRow,
  absoluteMet,
  formatTable,
  met,
  pairsMeeting,
  type Row,
} from '../../bench/table.js';

const row = (goal: Row['goal'], ratio: number): Row => ({
  name: 'read',
  ours: '600 ms',
  base: '500 ms',
  ratio,
  goal,
  limit: 1,
  against: 'controller-runtime',
});

describe('the bench table', () => {
  it('marks a missed target and leaves a met one unmarked', () => {
    expect(met(row('<=', 1.2))).toBe(false);
    expect(met(row('<=', 0.9))).toBe(true);
    expect(met(row('>=', 0.4))).toBe(false);
    const text = formatTable([row('<=', 1.2), row('<=', 0.9)], []).split('\n');
    expect(text[1]).toMatch(/1\.20x {3}<= 1\.00x controller-runtime {3}<< NOT met$/);
    expect(text[2]).toMatch(/0\.90x {3}<= 1\.00x controller-runtime$/);
  });

  it('shows an info row with its ratio and no target, whatever the ratio', () => {
    expect(met(row('info', 5))).toBe(true);
    const [, line] = formatTable([row('info', 5)], []).split('\n');
    expect(line).toMatch(/5\.00x {3}\(no target\)$/);
  });

  it('counts the alternated pairs that meet the target on their own, and shows them beside it', () => {
    expect(pairsMeeting([500, 700, 610], [600, 650, 610], '<=', 1)).toEqual({ met: 2, of: 3 });
    // Against a limit other than 1: 0.5x of the baseline's figure.
    expect(pairsMeeting([300, 260, 200], [600, 500, 500], '<=', 0.5)).toEqual({ met: 2, of: 3 });
    expect(pairsMeeting([2, 1], [1, 1], '>=', 1)).toEqual({ met: 2, of: 2 });
    // A side with a run missing counts only the complete pairs.
    expect(pairsMeeting([1, 2, 3], [2, 3], '<=', 1)).toEqual({ met: 2, of: 2 });
    const [, line] = formatTable([{ ...row('<=', 0.9), pairs: { met: 15, of: 21 } }], []).split('\n');
    expect(line).toMatch(/<= 1\.00x controller-runtime, met by 15\/21 pairs$/);
  });

  it('marks an absolute row over its limit, and shows an info one with why it has no target', () => {
    const rss = (goal: AbsoluteRow['goal'], value: number): AbsoluteRow => ({
      name: 'idle RSS, agent',
      value,
      unit: 'MB',
      goal,
      limit: 60,
      statistic: 'median of 3',
      ...(goal === 'info' ? { why: 'not how the image starts it' } : {}),
    });
    expect(absoluteMet(rss('<=', 60))).toBe(true);
    expect(absoluteMet(rss('<=', 60.1))).toBe(false);
    expect(absoluteMet(rss('<', 60))).toBe(false);
    expect(absoluteMet(rss('info', 99))).toBe(true);
    const [, over, info] = formatTable([], [rss('<=', 61.4), rss('info', 61.4)]).split('\n');
    expect(over).toMatch(/61\.4 MB {24}median of 3 <= 60 MB {3}<< NOT met$/);
    expect(info).toMatch(/61\.4 MB {24}median of 3 \(no target: not how the image starts it\)$/);
  });

  it('widens the name column to the longest name, so every figure stays in its column', () => {
    const long = 'scraped RSS, coordinator (dist/main.js)';
    const absolute: AbsoluteRow[] = [
      { name: 'plan', value: 4.1, unit: 'ms', goal: '<', limit: 20, statistic: 'median' },
      { name: long, value: 65.5, unit: 'MB', goal: 'info', limit: 60, statistic: 'median of 3' },
    ];
    const lines = formatTable([row('<=', 0.9)], absolute).split('\n');
    const end = (line: string, figure: string) => line.indexOf(figure) + figure.length;
    expect(lines[3]?.startsWith(`${long}  `)).toBe(true);
    // The capstan column ends at one offset on every line, the header's included.
    const ends = [
      end(lines[0]!, 'capstan'),
      end(lines[1]!, '600 ms'),
      end(lines[2]!, '4.1 ms'),
      end(lines[3]!, '65.5 MB'),
    ];
    expect(new Set(ends).size).toBe(1);
  });
});
