import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ManualClock } from '@capstan/runtime/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SentinelCommandSource } from '../../src/sources/sentinel-command-source.js';
import { SentinelFileSource } from '../../src/sources/sentinel-file-source.js';
import type { RebootNeededSource } from '../../src/sources/source.js';
import { recorder, waitFor } from './helpers.js';

let dir: string;
let source: RebootNeededSource | undefined;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'capstan-sentinel-'));
});
afterEach(async () => {
  await source?.stop();
  source = undefined;
  rmSync(dir, { recursive: true, force: true });
});

describe('SentinelFileSource', () => {
  it('flips on when the file appears and off when it goes, reporting changes only', async () => {
    const path = join(dir, 'reboot-required');
    source = new SentinelFileSource({ path, intervalMs: 50 });
    const rec = recorder();
    await source.start(rec.onChange);
    expect(rec.statuses).toEqual([{ rebootNeeded: false }]);

    writeFileSync(path, '');
    await waitFor('file seen', rec.last, (s) => s?.rebootNeeded === true);
    // Several polls with no change add nothing.
    await new Promise((r) => setTimeout(r, 200));
    expect(rec.statuses).toEqual([{ rebootNeeded: false }, { rebootNeeded: true }]);

    rmSync(path);
    await waitFor('file gone', rec.last, (s) => s?.rebootNeeded === false);
    expect(rec.statuses).toEqual([{ rebootNeeded: false }, { rebootNeeded: true }, { rebootNeeded: false }]);
  });

  it("polls on the runtime's clock: virtual time moves it, and no Node timer is left behind", async () => {
    const path = join(dir, 'reboot-required');
    const clock = new ManualClock();
    source = new SentinelFileSource({ path, intervalMs: 60_000, clock });
    const rec = recorder();
    await source.start(rec.onChange);
    expect(clock.pendingTimers()).toBe(1);
    writeFileSync(path, '');
    await clock.advanceAsync(59_999);
    expect(rec.statuses).toEqual([{ rebootNeeded: false }]);
    await clock.advanceAsync(1);
    await waitFor('file seen on the next tick', rec.last, (s) => s?.rebootNeeded === true);
    await source.stop();
    expect(clock.pendingTimers()).toBe(0);
  });

  it('an interval beyond the longest Node timer (24.8 days) waits instead of spinning', async () => {
    const path = join(dir, 'reboot-required');
    let checks = 0;
    const warnings: string[] = [];
    const onWarning = (w: Error) => warnings.push(w.name);
    process.on('warning', onWarning);
    class Counted extends SentinelFileSource {
      protected override check() {
        checks += 1;
        return super.check();
      }
    }
    try {
      source = new Counted({ path, intervalMs: 30 * 24 * 3_600_000 });
      await source.start(recorder().onChange);
      await new Promise((r) => setTimeout(r, 300));
      expect(checks).toBe(1);
      expect(warnings).not.toContain('TimeoutOverflowWarning');
    } finally {
      process.off('warning', onWarning);
    }
  });

  it('tells "missing" (no reboot) from "cannot look" (no directory, not a directory): never silence', async () => {
    const rec = recorder();
    source = new SentinelFileSource({ path: join(dir, 'run', 'reboot-required'), intervalMs: 30 });
    await source.start(rec.onChange);
    expect(rec.last()).toEqual({
      rebootNeeded: false,
      error: expect.stringContaining(
        `directory ${join(dir, 'run')} does not exist; mount the host's /run read-only at /host/run`,
      ),
    });
    mkdirSync(join(dir, 'run'));
    await waitFor('the directory seen: a real "no"', rec.last, (s) => s?.error === undefined);
    expect(rec.last()).toEqual({ rebootNeeded: false });
    await source.stop();

    writeFileSync(join(dir, 'file'), '');
    const beneathFile = new SentinelFileSource({
      path: join(dir, 'file', 'reboot-required'),
      intervalMs: 30,
    });
    source = beneathFile;
    const rec2 = recorder();
    await beneathFile.start(rec2.onChange);
    expect(rec2.last()?.error).toMatch(/cannot look for sentinel file .*ENOTDIR/);
  });

  it("at start, a directory on the container's own filesystem is an error saying what to mount", async () => {
    const run = join(dir, 'run');
    mkdirSync(run);
    const mountinfo = join(dir, 'mountinfo');
    const real = realpathSync(run);
    writeFileSync(
      mountinfo,
      [
        '700 600 0:50 / / rw,relatime - overlay overlay rw,lowerdir=/l,upperdir=/u,workdir=/w',
        '701 700 0:51 / /proc rw - proc proc rw',
      ].join('\n'),
    );
    const start = async () => {
      const rec = recorder();
      const started = new SentinelFileSource({
        path: join(run, 'reboot-required'),
        intervalMs: 30,
        mountInfoPath: mountinfo,
      });
      source = started;
      await started.start(rec.onChange);
      return { rec, started };
    };
    const { rec, started } = await start();
    expect(rec.last()?.error).toBe(
      `cannot look for sentinel file ${join(run, 'reboot-required')}: ${real} lies on the container's own filesystem (no volume is mounted there); mount the host's /run read-only at /host/run and pass --reboot-sentinel=/host/run/reboot-required (docs/os/ubuntu.md)`,
    );
    await started.stop();
    // With the host's directory mounted there (a volume), the same path is looked at.
    writeFileSync(
      mountinfo,
      `${readFileSync(mountinfo, 'utf8')}\n702 700 0:52 /run ${real.replaceAll(' ', '\\040')} ro,nosuid - tmpfs tmpfs ro\n`,
    );
    writeFileSync(join(run, 'reboot-required'), '');
    const { rec: rec2 } = await start();
    expect(rec2.statuses).toEqual([{ rebootNeeded: true }]);
  });

  it('defaults to /var/run/reboot-required', () => {
    expect(new SentinelFileSource().path).toBe('/var/run/reboot-required');
  });

  it('stops polling on stop()', async () => {
    const path = join(dir, 'reboot-required');
    source = new SentinelFileSource({ path, intervalMs: 20 });
    const rec = recorder();
    await source.start(rec.onChange);
    await source.stop();
    writeFileSync(path, '');
    await new Promise((r) => setTimeout(r, 100));
    expect(rec.statuses).toEqual([{ rebootNeeded: false }]);
  });
});

describe('SentinelCommandSource', () => {
  it('exit 0 means needed, any other exit means not needed', async () => {
    const flag = join(dir, 'flag');
    source = new SentinelCommandSource({ command: ['test', '-e', flag], intervalMs: 50, timeoutMs: 2_000 });
    const rec = recorder();
    await source.start(rec.onChange);
    expect(rec.statuses).toEqual([{ rebootNeeded: false }]);

    writeFileSync(flag, '');
    await waitFor('command exits 0', rec.last, (s) => s?.rebootNeeded === true);
    rmSync(flag);
    await waitFor('command exits 1', rec.last, (s) => s?.rebootNeeded === false);
    expect(rec.statuses).toEqual([{ rebootNeeded: false }, { rebootNeeded: true }, { rebootNeeded: false }]);
  });

  it('a command that cannot be spawned gives an error status', async () => {
    source = new SentinelCommandSource({ command: [join(dir, 'no-such-program')], intervalMs: 50 });
    const rec = recorder();
    await source.start(rec.onChange);
    expect(rec.last()).toMatchObject({
      rebootNeeded: false,
      error: expect.stringMatching(/failed to run.*ENOENT/),
    });
  });

  it('a command that runs too long is killed and reported, keeping the last known answer', async () => {
    const script = join(dir, 'sentinel.sh');
    const slow = join(dir, 'slow');
    const childPid = join(dir, 'child.pid');
    // Exits 0 at once, unless the "slow" file exists: then it hangs in a grandchild.
    writeFileSync(
      script,
      `#!/bin/sh\nif [ -e '${slow}' ]; then sleep 30 & echo $! > '${childPid}'; wait; fi\nexit 0\n`,
    );
    chmodSync(script, 0o755);
    source = new SentinelCommandSource({ command: [script], intervalMs: 30, timeoutMs: 150 });
    const rec = recorder();
    await source.start(rec.onChange);
    expect(rec.statuses).toEqual([{ rebootNeeded: true }]);

    writeFileSync(slow, '');
    const timedOut = await waitFor('timeout', rec.last, (s) => s?.error !== undefined);
    expect(timedOut).toEqual({ rebootNeeded: true, error: expect.stringMatching(/timed out after 150 ms/) });
    // The whole process group was killed, not just the shell.
    const pid = readFileSync(childPid, 'utf8').trim();
    await waitFor(
      'grandchild killed',
      () => alive(pid),
      (a) => !a,
    );

    rmSync(slow);
    await waitFor('recovered', rec.last, (s) => s?.error === undefined);
    expect(rec.last()).toEqual({ rebootNeeded: true });
  });

  it('times a run out on its clock', async () => {
    const clock = new ManualClock();
    source = new SentinelCommandSource({
      command: ['sleep', '30'],
      intervalMs: 1_000,
      timeoutMs: 5_000,
      clock,
    });
    const rec = recorder();
    const started = source.start(rec.onChange);
    await waitFor(
      'the timeout armed',
      () => clock.pendingTimers(),
      (n) => n === 1,
    );
    await clock.advanceAsync(5_000);
    await started;
    expect(rec.last()).toEqual({
      rebootNeeded: false,
      error: expect.stringMatching(/timed out after 5000 ms/),
    });
  });

  it('rejects an empty command', () => {
    expect(() => new SentinelCommandSource({ command: [] })).toThrow(/empty/);
  });
});

/** Whether a process is running (a zombie waiting for its reaper counts as dead). */
function alive(pid: string): boolean {
  const stat = `/proc/${pid}/stat`;
  if (!existsSync(stat)) return false;
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(stat, 'utf8'));
  } catch {
    return false;
  }
}
