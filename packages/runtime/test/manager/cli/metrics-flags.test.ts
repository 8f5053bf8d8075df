/** The secure metrics flags reach the manager's options as `metricsSecure`, or not at all. */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { managerOptionsFromFlags } from '../../../src/manager/cli/manager-options.js';
import { parseStandardOptions } from '../../../src/manager/cli/options.js';

const dir = mkdtempSync(join(tmpdir(), 'capstan-metrics-flags-'));
const kubeconfig = join(dir, 'config');
writeFileSync(
  kubeconfig,
  [
    'apiVersion: v1',
    'kind: Config',
    'clusters: [{ name: c, cluster: { server: "https://127.0.0.1:6443" } }]',
    'users: [{ name: u, user: { token: t } }]',
    'contexts: [{ name: dev, context: { cluster: c, user: u } }]',
    'current-context: dev',
  ].join('\n'),
);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const options = (argv: string[]) =>
  managerOptionsFromFlags(
    parseStandardOptions(['--kubeconfig', kubeconfig, ...argv], { name: 't' }).standard,
  );

it('maps --metrics-secure and its certificate flags to metricsSecure', () => {
  expect(options(['--metrics-secure', '--metrics-cert-path', '/certs']).metricsSecure).toEqual({
    certDir: '/certs',
    certName: 'tls.crt',
    keyName: 'tls.key',
  });
  const named = [
    '--metrics-secure=true',
    '--metrics-cert-path=/c',
    '--metrics-cert-name=a',
    '--metrics-cert-key=b',
  ];
  expect(options(named).metricsSecure).toEqual({ certDir: '/c', certName: 'a', keyName: 'b' });
});

it('serves a self-signed certificate for --metrics-secure without a folder (no usage error)', () => {
  expect(options(['--metrics-secure']).metricsSecure).toEqual({
    certDir: undefined,
    certName: 'tls.crt',
    keyName: 'tls.key',
  });
});

it('leaves metrics plain without --metrics-secure, even with a certificate folder', () => {
  expect(options([]).metricsSecure).toBeUndefined();
  expect(options(['--metrics-cert-path', '/certs']).metricsSecure).toBeUndefined();
  expect(options(['--metrics-secure=false', '--metrics-cert-path', '/certs']).metricsSecure).toBeUndefined();
});
