/**
 * The Node.js options the agent's image starts it with: its Dockerfile's ENTRYPOINT holds the same
 * (a test keeps them equal), and the fault suite and the bench start the agent with them too.
 *
 * The agent runs on every node and mostly waits. Once it has run a while (a metrics scrape now and
 * then is enough), V8 starts its optimizing compiler, whose code and memory then stay: measured on
 * the bundle after 120 scrapes, 66.9 MB of RSS, against 55.9 MB in lite mode (interpreter only,
 * feedback allocated lazily), for the same CPU per scrape. WebAssembly, which lite mode cannot run
 * and the agent does not use, is turned off by name so that Node does not warn about it on stderr.
 */
export const AGENT_NODE_OPTIONS: readonly string[] = ['--lite-mode', '--no-expose-wasm'];
