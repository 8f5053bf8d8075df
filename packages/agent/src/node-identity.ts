/**
 * The agent's start-up check that its token names its node. The admission policy in
 * deploy/admission-policy.yaml lets the agent write only the Node its token is bound to (the
 * token's `authentication.kubernetes.io/node-name`): an agent whose token carries no node claim
 * (a cluster older than 1.30, or a token not bound to the pod) would be denied every write, and
 * one whose claim names another node than `--node-name` is misconfigured. Both fail at start with
 * a message that says so, instead of failing every patch later. `--allow-unbound-token` lets an
 * agent run without a claim (where the policy is not installed), with a warning.
 */
import {
  type Client,
  defineResource,
  type KubeObject,
  type Logger,
  type ParseOptionsConfig,
} from '@capstan/runtime';

/** The user-info extra key under which a pod-bound token names the pod's node. */
export const NODE_NAME_EXTRA = 'authentication.kubernetes.io/node-name';

/** The user info a SelfSubjectReview reports. */
export interface ReviewedUser {
  username?: string;
  extra?: Record<string, readonly string[]>;
}

interface SelfSubjectReview extends KubeObject {
  status?: { userInfo?: ReviewedUser };
}

const SelfSubjectReview = defineResource<SelfSubjectReview>({
  group: 'authentication.k8s.io',
  version: 'v1',
  kind: 'SelfSubjectReview',
  plural: 'selfsubjectreviews',
  namespaced: false,
});

/** The verdict on an identity: run (perhaps with a warning) or stop with an error. */
export type IdentityVerdict = { ok: true; warning?: string } | { ok: false; error: string };

/**
 * Whether an agent for `nodeName` may run as `user`. Pure: a claim naming `nodeName` passes; a
 * claim naming another node (or several) never does; no claim passes only with `allowUnbound`.
 */
export function judgeNodeIdentity(
  user: ReviewedUser,
  nodeName: string,
  allowUnbound: boolean,
): IdentityVerdict {
  const who = user.username ?? '(unknown user)';
  const claim = user.extra?.[NODE_NAME_EXTRA] ?? [];
  if (claim.length === 0) {
    const problem = `the agent's token (${who}) carries no node claim (${NODE_NAME_EXTRA}): it is not a token bound to a pod on a node, or the cluster is older than Kubernetes 1.30`;
    if (allowUnbound) {
      return {
        ok: true,
        warning: `${problem}; running anyway (--allow-unbound-token): the admission policy that limits the agent to its own node cannot work, so do not install it`,
      };
    }
    return {
      ok: false,
      error: `${problem}. The admission policy (deploy/admission-policy.yaml) would deny every write. Run the agent from its DaemonSet with a projected service-account token, or pass --allow-unbound-token where the policy is not installed`,
    };
  }
  if (claim.length !== 1 || claim[0] !== nodeName) {
    return {
      ok: false,
      error: `the agent's token (${who}) is bound to node ${claim.join(', ')}, but the agent was started for node ${nodeName}: --node-name (or $NODE_NAME from the downward API, spec.nodeName) must name the pod's own node`,
    };
  }
  return { ok: true };
}

/** Thrown by {@link verifyNodeIdentity} when the agent must not run. */
export class NodeIdentityError extends Error {
  override readonly name = 'NodeIdentityError';
}

/**
 * Asks the API server who the agent is (a SelfSubjectReview, which every authenticated user may
 * create) and applies {@link judgeNodeIdentity}; logs the warning, throws {@link NodeIdentityError}.
 */
export async function verifyNodeIdentity(
  client: Client,
  nodeName: string,
  options: { allowUnboundToken: boolean; logger: Logger },
): Promise<void> {
  const review = await client.create(SelfSubjectReview, { metadata: {} });
  const verdict = judgeNodeIdentity(review.status?.userInfo ?? {}, nodeName, options.allowUnboundToken);
  if (!verdict.ok) throw new NodeIdentityError(verdict.error);
  if (verdict.warning) options.logger.warn(verdict.warning);
}

/** The flag of this check, parsed. */
export interface NodeIdentityFlags {
  allowUnboundToken: boolean;
}

/** Adds `--allow-unbound-token` to the agent's command. */
export const addNodeIdentityFlags: NonNullable<ParseOptionsConfig['extend']> = (cmd) => {
  cmd.option(
    '--allow-unbound-token [bool]',
    'run even when the token names no node (clusters without the admission policy; warns)',
    (v: string) => v !== 'false',
    false,
  );
};
