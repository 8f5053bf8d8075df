/**
 * The Node.js options the coordinator's image starts it with: its Dockerfile's ENTRYPOINT holds
 * the same (a test keeps them equal), and the bench starts it with them too.
 *
 * What a coordinator's RSS grows by at a thousand nodes is V8's headroom, not live data: a heap
 * snapshot mid-rollout holds 18 MB of live objects in a 70-80 MB heap. Every grant round parses a
 * fresh list of its groups' nodes (the fence's) and drops it; V8 lets the old space grow up to
 * four times what survived the last full collection before it collects again, and the young
 * generation is 16 MB semi-spaces by default. Semi-spaces of 4 MB, and an old space that grows by
 * half at most (`--heap-growing-percent`: a full collection sooner, each small at this size), keep
 * the peak down for a little CPU (measured in the bench's rollout row, docs/ARCHITECTURE.md).
 */
export const COORDINATOR_NODE_OPTIONS: readonly string[] = [
  '--max-semi-space-size=4',
  '--heap-growing-percent=50',
];
