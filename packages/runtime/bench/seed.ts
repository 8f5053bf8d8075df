import { type ApiTransport, ConfigMap, Namespace } from '@capstan/runtime/client';

/** Creates `count` ConfigMaps `cm-<i>` with a `payloadBytes` data value in a new namespace. */
export async function seedConfigMaps(
  transport: ApiTransport,
  namespace: string,
  count: number,
  payloadBytes: number,
): Promise<void> {
  await transport.create(Namespace, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } });
  const payload = 'x'.repeat(payloadBytes);
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < count; i = next++) {
      await transport.create(ConfigMap, {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: `cm-${i}`, namespace, labels: { app: 'bench', index: String(i) } },
        data: { payload },
      });
    }
  };
  await Promise.all(Array.from({ length: 48 }, worker));
}
