import { describe, expect, it } from 'vitest';
import {
  AGENT_FAILURE_ANNOTATION,
  capstanProtocol,
  coordinatorKeys,
  fluoProtocol,
  formatAgentFailure,
  parseAgentFailure,
  parseTimestamp,
  protocolOf,
  readFlag,
} from '../src/index.js';

describe('protocol', () => {
  it('names every role under its prefix, FLUO byte for byte', () => {
    const f = 'flatcar-linux-update.v1.flatcar-linux.net/';
    expect(fluoProtocol.annotations).toEqual({
      rebootNeeded: `${f}reboot-needed`,
      rebootOk: `${f}reboot-ok`,
      rebootInProgress: `${f}reboot-in-progress`,
      rebootPaused: `${f}reboot-paused`,
      status: `${f}status`,
      newVersion: `${f}new-version`,
      lastCheckedTime: `${f}last-checked-time`,
      agentMadeUnschedulable: `${f}agent-made-unschedulable`,
    });
    expect(fluoProtocol.labels.beforeReboot).toBe(`${f}before-reboot`);
    expect(fluoProtocol.labels.afterReboot).toBe(`${f}after-reboot`);
    expect(fluoProtocol.withdraw).toBe('false');
    expect(capstanProtocol.annotations.rebootOk).toBe('reboot.capstan.dev/reboot-ok');
    expect(capstanProtocol.withdraw).toBe('remove');
  });

  it('keeps our bookkeeping under our prefix, apart from every protocol key', () => {
    const ours = Object.values(coordinatorKeys);
    expect(ours.every((k) => k.startsWith('reboot.capstan.dev/'))).toBe(true);
    const roles = [...Object.values(capstanProtocol.annotations), ...Object.values(capstanProtocol.labels)];
    expect(ours.filter((k) => roles.includes(k))).toEqual([]);
  });

  it('reads only the exact string "true" as true, flagging anything but true/false/absent', () => {
    expect(readFlag({ k: 'true' }, 'k')).toEqual({ value: true, garbage: false });
    expect(readFlag({ k: 'false' }, 'k')).toEqual({ value: false, garbage: false });
    expect(readFlag({}, 'k')).toEqual({ value: false, garbage: false });
    expect(readFlag({ k: 'True' }, 'k')).toEqual({ value: false, garbage: true });
  });
});

describe('timestamps', () => {
  it('parses RFC 3339 only', () => {
    expect(parseTimestamp('2025-01-06T12:00:00.000Z')).toBe(Date.UTC(2025, 0, 6, 12));
    expect(parseTimestamp('2025-01-06T13:00:00+01:00')).toBe(Date.UTC(2025, 0, 6, 12));
    for (const bad of ['-5', '1736164800', 'yesterday', '2025-13-45T99:99:99Z', '', 'x'.repeat(100)]) {
      expect(parseTimestamp(bad)).toBeUndefined();
    }
  });
});

describe('protocol names', () => {
  it('resolves capstan (the default) and fluo, and refuses anything else', () => {
    expect(protocolOf(undefined)).toBe(capstanProtocol);
    expect(protocolOf('capstan')).toBe(capstanProtocol);
    expect(protocolOf('fluo')).toBe(fluoProtocol);
    expect(protocolOf(fluoProtocol)).toBe(fluoProtocol);
    expect(() => protocolOf('cluo' as never)).toThrow('unknown protocol "cluo" (capstan or fluo)');
  });
});

describe('agent failure marker', () => {
  it('lives under our prefix and reads back what was written', () => {
    expect(AGENT_FAILURE_ANNOTATION).toBe('reboot.capstan.dev/agent-failure');
    const at = Date.UTC(2025, 0, 1);
    const raw = formatAgentFailure('DrainFailed', at, '2 pods left (ns/a, ns/b)');
    expect(raw).toBe('DrainFailed 2025-01-01T00:00:00.000Z: 2 pods left (ns/a, ns/b)');
    expect(parseAgentFailure(raw)).toEqual({
      reason: 'DrainFailed',
      at,
      message: '2 pods left (ns/a, ns/b)',
    });
  });

  it('reads garbage as no marker, never throwing', () => {
    for (const bad of [undefined, '', 'DrainFailed', 'DrainFailed yesterday: x', 'x'.repeat(100)]) {
      expect(parseAgentFailure(bad)).toBeUndefined();
    }
  });
});
