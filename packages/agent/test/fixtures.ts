/** Node states the agent's pure tests start from. */
import { capstanProtocol, coordinatorKeys } from '@capstan/reboot-protocol';

const k = capstanProtocol.annotations;

/** A node mid-cycle: asking, granted (fenced to `bootId`), in progress, cordoned by the agent. */
export function midCycleAnnotations(bootId = 'boot-1'): Record<string, string> {
  return {
    [k.rebootNeeded]: 'true',
    [k.rebootOk]: 'true',
    [k.rebootInProgress]: 'true',
    [k.agentMadeUnschedulable]: 'true',
    [coordinatorKeys.grantedBootId]: bootId,
  };
}
