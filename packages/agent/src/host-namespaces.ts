/**
 * Running a program on the host from the agent's container: `nsenter` into the namespaces of a
 * host process (PID 1, visible with `hostPID`). Used by the sentinel command and the command
 * reboot method; the privilege it needs is in docs/security.md.
 */

/** Which host process's namespaces to enter, and with what. */
export interface HostNamespaces {
  /** The process whose namespaces are entered; default 1 (the host's init, with `hostPID`). */
  targetPid?: number;
  /** The nsenter program; default `nsenter` (util-linux). */
  nsenter?: string;
}

/** The namespaces entered, in nsenter's flags: all but the user and cgroup ones. */
const NAMESPACE_FLAGS = ['--mount', '--uts', '--ipc', '--net', '--pid'] as const;

/** The argv that runs `command`: itself, or through nsenter in the host's namespaces. */
export function hostArgv(command: readonly string[], host?: HostNamespaces): string[] {
  if (!host) return [...command];
  return [
    host.nsenter ?? 'nsenter',
    '--target',
    String(host.targetPid ?? 1),
    ...NAMESPACE_FLAGS,
    '--',
    ...command,
  ];
}
