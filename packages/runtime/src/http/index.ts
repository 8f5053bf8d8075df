/**
 * HTTP(S) to APIs other than Kubernetes' (`@capstan/runtime/http`): one request answered whole
 * over a keep-alive agent that trusts a CA bundle, with a deadline and cancellation. Providers use
 * it for their cloud's API, simulators' test clients for the simulator. It loads no Kubernetes
 * client code.
 */
export { RequestTimeoutError } from '../transport/http-transport.js';
export { type HttpAnswer, type HttpRequest, keepAliveAgent, sendRequest, type TlsTrust } from './request.js';
