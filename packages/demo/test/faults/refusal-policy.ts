/**
 * The refused node: an admission policy that refuses every update of one Node by the
 * coordinator's service account (so its grant can never be written) and any cordon of it by the
 * agent's (so even a grant that slipped through could not start a drain). The agent's reports
 * (reboot-needed, its labels) still land, so the node asks for a reboot and waits in its group's
 * queue: the coordinator must surface it as failed and go on with the others.
 */
import { type ControlPlane, refuseWrites } from '@capstan/envtest';
import { capstanProtocol } from '@capstan/reboot-protocol';
import type { Client } from '@capstan/runtime';
import { Node } from '@capstan/runtime/client';

/** The message the policy refuses with (so a test can tell it from the shipped policies). */
export const REFUSAL_MESSAGE = 'the fault suite refuses writes to this node';

/**
 * Refuses `coordinatorUser` and `agentUser` writes to `node` as the file comment says, and waits
 * until `coordinator` (a client as `coordinatorUser`) is refused a dry-run write to it. The run
 * ends with the plane, so the refusal is never lifted.
 */
export async function refuseNode(
  plane: ControlPlane,
  coordinator: Client,
  node: string,
  coordinatorUser: string,
  agentUser: string,
): Promise<void> {
  await refuseWrites(plane, {
    name: `fault-suite-refuse-${node}`,
    resourceRules: [
      { apiGroups: [''], apiVersions: ['*'], operations: ['UPDATE'], resources: ['nodes', 'nodes/*'] },
    ],
    matchConditions: [
      { name: 'this-node', expression: `object.metadata.name == '${node}'` },
      {
        name: 'from-the-operators',
        expression: `request.userInfo.username in ['${coordinatorUser}', '${agentUser}']`,
      },
    ],
    expression: `request.userInfo.username != '${coordinatorUser}' && !(object.spec.?unschedulable.orValue(false) && !oldObject.spec.?unschedulable.orValue(false))`,
    message: REFUSAL_MESSAGE,
    probe: () =>
      coordinator.patch(
        Node,
        { name: node },
        'merge',
        // Removing the grant (absent anyway): a write the shipped policy allows the coordinator.
        { metadata: { annotations: { [capstanProtocol.annotations.rebootOk]: null } } },
        { dryRun: true },
      ),
    timeoutMs: 60_000,
  });
}
