/**
 * The Node.js options the coordinator's image starts it with: its Dockerfile's ENTRYPOINT holds
 * the same (a test keeps them equal), and the bench starts it with them too.
 *
 * What a coordinator's RSS grows by at a thousand nodes is V8's headroom, not live data: the young
 * generation at its 16 MB semi-space default (two of them, and the old space's slack behind what
 * they promote: each grant round parses a fresh list of every node). Semi-spaces of 4 MB keep
 * the peak down at the same CPU (measured in the bench's rollout row, docs/ARCHITECTURE.md).
 */
export const COORDINATOR_NODE_OPTIONS: readonly string[] = ['--max-semi-space-size=4'];
