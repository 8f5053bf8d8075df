/**
 * A refusal for tests: the API server denies some writes (403), as a cluster's own admission
 * policy would, so a test can show what an operator does when its writes are refused. It is a
 * ValidatingAdmissionPolicy and its binding; the admission plugin learns of them through an
 * informer, so {@link refuseWrites} waits until a probe write is refused before it returns.
 */
import type { ControlPlane } from './control-plane.js';
import { pollUntil } from './wait.js';

/** The requests a policy looks at (`spec.matchConstraints.resourceRules` of a ValidatingAdmissionPolicy). */
export interface AdmissionResourceRule {
  /** API groups, `''` for the core group. */
  apiGroups: string[];
  apiVersions: string[];
  /** e.g. `['CREATE', 'UPDATE']`. */
  operations: string[];
  /** Resources, with subresources as `nodes/status` or `nodes/*`. */
  resources: string[];
}

/** What {@link refuseWrites} refuses. */
export interface WriteRefusal {
  /** Name of the policy and of its binding (both cluster-scoped). */
  name: string;
  /** The requests the policy looks at. */
  resourceRules: AdmissionResourceRule[];
  /** CEL conditions a request must meet to be looked at (e.g. who sends it); default: every request. */
  matchConditions?: Array<{ name: string; expression: string }>;
  /** A CEL expression a request must satisfy to be admitted: where it is false, the write is refused. */
  expression: string;
  /** The refusal's message (the API server's 403 message contains it). */
  message: string;
  /**
   * A write the policy refuses once in force, typically a dry run. The refusal is in force when
   * it rejects with an error whose `code` is 403 (the runtime's ApiError, client-node's
   * ApiException) and whose message contains {@link WriteRefusal.message}.
   */
  probe: () => Promise<unknown>;
  /** How long the policy may take to come into force (default 30 s). */
  timeoutMs?: number;
}

const ADMISSION_API = '/apis/admissionregistration.k8s.io/v1';

/** Whether `err` is the 403 of the refusal whose message is `message`. */
function refusedWith(err: unknown, message: string): boolean {
  return (err as { code?: unknown }).code === 403 && err instanceof Error && err.message.includes(message);
}

/**
 * Creates a ValidatingAdmissionPolicy (failure policy Fail) and its Deny binding that refuse the
 * writes `refusal` describes, and waits until its probe is refused. Answers a function that lifts
 * the refusal: it deletes the binding, then the policy, and resolves once both are gone; calling it
 * again (say, in a test's cleanup after the test lifted it) does nothing.
 *
 * @example
 * ```ts
 * const lift = await refuseWrites(plane, {
 *   name: 'freeze-web',
 *   resourceRules: [{ apiGroups: ['apps'], apiVersions: ['v1'], operations: ['UPDATE'], resources: ['deployments'] }],
 *   expression: "object.metadata.name != 'web'",
 *   message: 'web is frozen',
 *   probe: () => client.patch(Deployment, { namespace, name: 'web' }, 'merge', {}, { dryRun: true }),
 * });
 * // ... the operator's writes to web are refused ...
 * await lift();
 * ```
 */
export async function refuseWrites(plane: ControlPlane, refusal: WriteRefusal): Promise<() => Promise<void>> {
  const { name } = refusal;
  await plane.createObjects([
    {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingAdmissionPolicy',
      metadata: { name },
      spec: {
        failurePolicy: 'Fail',
        matchConstraints: { resourceRules: refusal.resourceRules },
        ...(refusal.matchConditions ? { matchConditions: refusal.matchConditions } : {}),
        validations: [{ expression: refusal.expression, message: refusal.message, reason: 'Forbidden' }],
      },
    },
    {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingAdmissionPolicyBinding',
      metadata: { name },
      spec: { policyName: name, validationActions: ['Deny'] },
    },
  ]);
  const lift = async () => {
    const paths = [`validatingadmissionpolicybindings/${name}`, `validatingadmissionpolicies/${name}`];
    for (const path of paths) {
      const answer = await plane.request('DELETE', `${ADMISSION_API}/${path}`);
      if (answer.status >= 300 && answer.status !== 404)
        throw new Error(`deleting ${path}: ${answer.status} ${JSON.stringify(answer.body)}`);
    }
    await pollUntil(`the refusal ${name} removed`, 30_000, async () => {
      for (const path of paths)
        if ((await plane.request('GET', `${ADMISSION_API}/${path}`)).status !== 404) return undefined;
      return true;
    });
  };
  let last = 'never answered';
  try {
    await pollUntil(`the refusal ${name} in force`, refusal.timeoutMs ?? 30_000, () =>
      refusal.probe().then(
        () => {
          last = 'it was admitted';
          return undefined;
        },
        (err: unknown) => {
          if (refusedWith(err, refusal.message)) return true;
          last = `it failed otherwise: ${err instanceof Error ? err.message : String(err)}`;
          return undefined;
        },
      ),
    );
  } catch (err) {
    await lift().catch(() => {});
    throw new Error(`${(err as Error).message}; the last probe: ${last}`);
  }
  return lift;
}
