/**
 * The coordinator's name wherever the cluster sees it: its field manager, Lease, ServiceAccount and
 * roles, its command, and the creator of the silences it writes.
 */
export const COORDINATOR_MANAGER = 'capstan-coordinator';
