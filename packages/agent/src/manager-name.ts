/**
 * The agent's name wherever the cluster or its node sees it: its field manager, ServiceAccount and
 * roles, its command, and who holds its logind inhibitor lock.
 */
export const AGENT_MANAGER = 'capstan-agent';
