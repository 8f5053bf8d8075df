/** A machine without podman gets a failure that says what to install, never a silent skip. */
import { describe, expect, it } from 'vitest';
import { PODMAN_MISSING, requirePodman } from './podman.js';

describe('requirePodman', () => {
  it('names the packages to install when podman is not on the PATH', () => {
    expect(() => requirePodman('/nonexistent')).toThrow('podman was not found');
    expect(PODMAN_MISSING).toContain('apt-get install podman runc debootstrap');
    expect(() => requirePodman('/nonexistent')).toThrow(PODMAN_MISSING);
  });

  it('passes on this machine, where .ci/run installed them', () => {
    expect(() => requirePodman()).not.toThrow();
  });
});
