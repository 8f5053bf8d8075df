/**
 * The bench starts its processes with a Pod's environment: the shell's start-up settings (such
 * as NODE_EXTRA_CA_CERTS, which Node acts on before a probe's first line) do not reach them unless
 * BENCH_PROBE_ENV=inherit says so, and a process's own variables always do.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { droppedStartupVariables, podEnvironment } from '../../bench/pod-environment.js';

afterEach(() => vi.unstubAllEnvs());

describe("the bench's process environment", () => {
  it('keeps PATH and HOME and the given variables, and drops the rest', () => {
    vi.stubEnv('NODE_EXTRA_CA_CERTS', '/etc/ssl/certs/ca-certificates.crt');
    vi.stubEnv('BENCH_PROBE_ENV', undefined);
    vi.stubEnv('SOME_SHELL_SETTING', 'x');
    const env = podEnvironment({ KUBECONFIG: '/tmp/kubeconfig' });
    expect(env.PATH).toBe(process.env.PATH);
    expect(env.KUBECONFIG).toBe('/tmp/kubeconfig');
    expect(env.NODE_EXTRA_CA_CERTS).toBeUndefined();
    expect(env.SOME_SHELL_SETTING).toBeUndefined();
    expect(droppedStartupVariables()).toContain('NODE_EXTRA_CA_CERTS');
  });

  it('passes the whole environment on with BENCH_PROBE_ENV=inherit', () => {
    vi.stubEnv('NODE_EXTRA_CA_CERTS', '/etc/ssl/certs/ca-certificates.crt');
    vi.stubEnv('BENCH_PROBE_ENV', 'inherit');
    expect(podEnvironment({ KUBECONFIG: 'k' })).toMatchObject({
      NODE_EXTRA_CA_CERTS: '/etc/ssl/certs/ca-certificates.crt',
      KUBECONFIG: 'k',
    });
    expect(droppedStartupVariables()).toEqual([]);
  });

  it('refuses a BENCH_PROBE_ENV it does not know', () => {
    vi.stubEnv('BENCH_PROBE_ENV', 'all');
    expect(() => podEnvironment()).toThrow(/BENCH_PROBE_ENV/);
  });
});
