/**
 * The refused node: a ValidatingAdmissionPolicy and its binding that refuse every update of one
 * Node by the coordinator's service account (so its grant can never be written) and any cordon of
 * it by the agent's (so even a grant that slipped through could not start a drain). The agent's
 * reports (reboot-needed, its labels) still land, so the node asks for a reboot and waits in its
 * group's queue: the coordinator must surface it as failed and go on with the others.
 */
import type { ControlPlane } from '@capstan/envtest';
import { capstanProtocol } from '@capstan/reboot-protocol';
import { type ApiError, type Client, isForbidden, type KubeObject } from '@capstan/runtime';
import { Node } from '@capstan/runtime/client';
import { eventually } from '@capstan/runtime/testing';

/** The message the policy refuses with (so a test can tell it from the shipped policies). */
export const REFUSAL_MESSAGE = 'the fault suite refuses writes to this node';

/** Creates the policy and binding for `node`, refusing `coordinatorUser` and `agentUser`. */
export async function refuseNode(
  plane: ControlPlane,
  node: string,
  coordinatorUser: string,
  agentUser: string,
): Promise<void> {
  const name = `fault-suite-refuse-${node}`;
  await plane.createObjects([
    {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingAdmissionPolicy',
      metadata: { name },
      spec: {
        failurePolicy: 'Fail',
        matchConstraints: {
          resourceRules: [
            { apiGroups: [''], apiVersions: ['*'], operations: ['UPDATE'], resources: ['nodes', 'nodes/*'] },
          ],
        },
        matchConditions: [
          { name: 'this-node', expression: `object.metadata.name == '${node}'` },
          {
            name: 'from-the-operators',
            expression: `request.userInfo.username in ['${coordinatorUser}', '${agentUser}']`,
          },
        ],
        validations: [
          {
            expression: `request.userInfo.username != '${coordinatorUser}' && !(object.spec.?unschedulable.orValue(false) && !oldObject.spec.?unschedulable.orValue(false))`,
            message: REFUSAL_MESSAGE,
            reason: 'Forbidden',
          },
        ],
      },
    },
    {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingAdmissionPolicyBinding',
      metadata: { name },
      spec: { policyName: name, validationActions: ['Deny'] },
    },
  ] as unknown as KubeObject[]);
}

/** Waits until `coordinator` is refused a (dry-run) write to `node` by the policy. */
export async function refusalInForce(coordinator: Client, node: string): Promise<void> {
  await eventually(
    () =>
      coordinator
        .patch(
          Node,
          { name: node },
          'merge',
          // Removing the grant (absent anyway): a write the shipped policy allows the coordinator.
          { metadata: { annotations: { [capstanProtocol.annotations.rebootOk]: null } } },
          { dryRun: true },
        )
        .then(
          () => false,
          (err: ApiError) => isForbidden(err) && err.message.includes(REFUSAL_MESSAGE),
        ),
    { what: `the policy refusing writes to ${node}`, timeoutMs: 60_000 },
  );
}
