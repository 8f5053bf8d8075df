/** capvcd's name wherever the cluster sees it: its field manager, Lease, ServiceAccount and command. */
export const CAPVCD_MANAGER = 'capstan-capvcd';
