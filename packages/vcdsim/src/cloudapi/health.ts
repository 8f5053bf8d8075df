/**
 * Load balancer health, pure. A member is UP while it is enabled and the VM holding its address is
 * powered on, booted and serving (as the boot hook or the test decides); a pool or virtual service
 * is UP while at least one enabled member is UP (how NSX-T ALB routes), DOWN otherwise, and
 * DISABLED when switched off.
 */

export type Health = 'UP' | 'DOWN' | 'DISABLED';

/** What the health of a member depends on. */
export interface MemberFacts {
  enabled: boolean;
  /** A VM holds the member's address, is powered on and booted. */
  vmRunning: boolean;
  /** That VM's guest serves the port. */
  serving: boolean;
}

export function memberHealth(m: MemberFacts): Health {
  if (!m.enabled) return 'DISABLED';
  return m.vmRunning && m.serving ? 'UP' : 'DOWN';
}

/** A pool's (or its virtual service's) health from its members'. */
export function poolHealth(enabled: boolean, members: Health[]): Health {
  if (!enabled) return 'DISABLED';
  return members.includes('UP') ? 'UP' : 'DOWN';
}
