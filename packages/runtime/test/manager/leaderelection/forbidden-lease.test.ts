/**
 * An identity without RBAC on Leases (the usual mistake when `--leader-elect` runs outside its
 * pod) is told once, with the fix, not warned at every 2 s retry.
 */
import { useControlPlane } from '@capstan/envtest/vitest';
import { expect, it } from 'vitest';
import type { Logger } from '../../../src/log/logger.js';
import { LeaderElector } from '../../../src/manager/leaderelection/leader-elector.js';
import { HttpTransport } from '../../../src/transport/http-transport.js';

const env = useControlPlane('leader-forbidden');

function recordingLogger(records: Array<{ level: string; msg: string }>): Logger {
  const at =
    (level: string) =>
    (a: unknown, b?: unknown): void => {
      records.push({ level, msg: String(typeof a === 'string' ? a : b) });
    };
  const logger = {
    trace: at('trace'),
    debug: at('debug'),
    info: at('info'),
    warn: at('warn'),
    error: at('error'),
    fatal: at('fatal'),
    child: () => logger,
    isLevelEnabled: () => true,
  };
  return logger as unknown as Logger;
}

it('says a forbidden lease once, with what to grant, while it keeps retrying', async () => {
  const nobody = await env.plane.userKubeConfig('lease-nobody');
  const transport = new HttpTransport(nobody);
  const records: Array<{ level: string; msg: string }> = [];
  const elector = new LeaderElector(transport, {
    name: 'forbidden',
    namespace: env.namespace,
    namespaceFrom: 'the kubeconfig context "dev"',
    leaseDurationMs: 3_000,
    renewDeadlineMs: 2_000,
    retryPeriodMs: 150,
    jitterFactor: 0,
    logger: recordingLogger(records),
  });
  try {
    elector.start();
    await new Promise((r) => setTimeout(r, 1_500));
  } finally {
    await elector.stop();
    transport.close();
  }
  const forbidden = records.filter((r) => r.msg.includes('forbidden'));
  expect(forbidden.length).toBeGreaterThanOrEqual(4); // it kept trying
  expect(forbidden.filter((r) => r.level === 'warn')).toHaveLength(1);
  expect(forbidden[0]?.msg).toMatch(
    new RegExp(`cannot read the lease ${env.namespace}/forbidden: forbidden\\. Grant this identity`),
  );
  expect(records.filter((r) => r.level === 'info').map((r) => r.msg)).toContain(
    'attempting to acquire leader lease (namespace from the kubeconfig context "dev")',
  );
  expect(elector.isLeader()).toBe(false);
});
