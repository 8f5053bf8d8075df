/**
 * The webhook server inside a manager: served on every replica (the standby too, not only the
 * leader), part of /readyz, configured by --webhook-port and --webhook-cert-dir, and a start that
 * fails clearly when the certificate is missing.
 */
import { WebhookServingCert } from '@capstan/envtest';
import { useControlPlane } from '@capstan/envtest/vitest';
import { Manager, parseStandardOptions } from '@capstan/runtime';
import { ConfigMap } from '@capstan/runtime/client';
import { eventually } from '@capstan/runtime/testing';
import { afterAll, describe, expect, it } from 'vitest';
import { admissionBody, post } from './https-client.js';

const env = useControlPlane('webhook-manager');
const stops: Array<() => Promise<unknown>> = [];
afterAll(async () => {
  for (const stop of stops) await stop();
});

async function replica(identity: string) {
  const cert = await WebhookServingCert.create();
  const manager = Manager.create({
    kubeConfig: env.kubeConfig,
    namespace: env.namespace,
    logLevel: 'silent',
    metricsBindAddress: '0',
    healthProbeBindAddress: '127.0.0.1:0',
    leaderElection: { id: 'webhook-replicas', namespace: env.namespace, identity },
    webhook: { host: '127.0.0.1', port: 0, certDir: cert.certDir },
  });
  manager.webhooks.addAdmission('/who', () => ({ allowed: true, warnings: [`served by ${identity}`] }));
  manager
    .controllerBuilder()
    .for(ConfigMap)
    .build(async () => {});
  const stop = new AbortController();
  const done = manager.start(stop.signal);
  stops.push(async () => {
    stop.abort();
    await done;
    cert.remove();
  });
  return { identity, manager, cert };
}

const ask = (r: Awaited<ReturnType<typeof replica>>) =>
  post(
    r.manager.webhooks.port as number,
    '/who',
    admissionBody({ kind: { group: '', version: 'v1', kind: 'ConfigMap' }, operation: 'CONNECT' }),
    {
      ca: r.cert.caPem,
    },
  );

describe('a manager with webhooks', () => {
  it('serves them on the leader and on the standby, and reports them ready', async () => {
    const replicas = [await replica('a'), await replica('b')];
    await eventually(() => replicas.some((r) => r.manager.elector?.isLeader()), {
      what: 'a leader',
      timeoutMs: 20_000,
    });
    const standby = replicas.find((r) => !r.manager.elector?.isLeader());
    expect(standby).toBeDefined();
    for (const r of replicas) {
      const reply = await eventually(() => r.manager.webhooks.port !== undefined && ask(r), {
        what: `${r.identity} serving`,
      });
      expect(reply.body.response).toEqual({
        uid: 'uid-1',
        allowed: true,
        warnings: [`served by ${r.identity}`],
      });
      const ready = await fetch(`http://127.0.0.1:${r.manager.listening.probes}/readyz?verbose`);
      expect(await ready.text()).toContain('[+]webhook ok');
    }
    // Readiness follows the server: one that stopped serving takes the pod out of the Service.
    const [first] = replicas as [(typeof replicas)[number]];
    await first.manager.webhooks.stop();
    const unready = await fetch(`http://127.0.0.1:${first.manager.listening.probes}/readyz?verbose`);
    expect(unready.status).toBe(503);
    expect(await unready.text()).toContain('[-]webhook failed');
  });

  it('fails to start, naming the folder and the flag, without a certificate', async () => {
    const manager = Manager.create({
      kubeConfig: env.kubeConfig,
      logLevel: 'silent',
      metricsBindAddress: '0',
      healthProbeBindAddress: '0',
      webhook: { port: 0, certDir: '/nonexistent/certs' },
    });
    manager.webhooks.addAdmission('/x', () => ({ allowed: true }));
    await expect(manager.start(new AbortController().signal)).rejects.toThrow(
      /\/nonexistent\/certs\/tls\.crt.*--webhook-cert-dir must hold them/,
    );
  });

  it('reads --webhook-port and --webhook-cert-dir, and refuses a port that is not one', () => {
    const { standard } = parseStandardOptions(['--webhook-port', '9444', '--webhook-cert-dir', '/certs'], {
      name: 't',
    });
    expect(standard).toMatchObject({ webhookPort: 9444, webhookCertDir: '/certs' });
    expect(parseStandardOptions([], { name: 't' }).standard).not.toHaveProperty('webhookPort');
    const errors: string[] = [];
    const exit = (code: number): never => {
      throw new Error(`exit ${code}`);
    };
    expect(() =>
      parseStandardOptions(['--webhook-port', 'http'], {
        name: 't',
        exit,
        output: { writeOut: () => {}, writeErr: (s) => errors.push(s) },
      }),
    ).toThrow('exit 2');
    expect(errors.join('')).toMatch(/--webhook-port.*expected a port from 0 to 65535/);
  });
});
