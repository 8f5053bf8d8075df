/**
 * What the client's envtest tests share: a namespace on the run's control plane, a transport that
 * records every request, and a client on it.
 */
import { useControlPlane } from '@capstan/envtest/vitest';
import { beforeAll } from 'vitest';
import { type ApiError } from '../../src/api/errors.js';
import { Client } from '../../src/client/client.js';
import { HttpTransport, type RequestMetric } from '../../src/transport/http-transport.js';

export const env = useControlPlane('client');

export let transport: HttpTransport;
export let client: Client;
export const metrics: RequestMetric[] = [];
beforeAll(() => {
  transport = new HttpTransport(env.kubeConfig, { onRequest: (m) => metrics.push(m) });
  client = new Client(transport, { fieldManager: 'capstan-test' });
  return () => transport.close();
});

export const key = (name: string) => ({ namespace: env.namespace, name });
export const configMap = (
  name: string,
  data: Record<string, string> = {},
  labels: Record<string, string> = {},
) => ({
  metadata: { name, namespace: env.namespace, labels },
  data,
});

export const errorOf = (p: Promise<unknown>) =>
  p.then(
    () => undefined,
    (e: unknown) => e as ApiError,
  );
