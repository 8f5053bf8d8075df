/**
 * TLS session resumption against the real kube-apiserver (Go's crypto/tls, a client certificate):
 * a pool's new connections resume the session its first one got, and the server still knows who
 * is asking on a resumed connection.
 */
import type https from 'node:https';
import { useControlPlane } from '@capstan/envtest/vitest';
import { afterAll, describe, expect, it } from 'vitest';
import { ConnectionPools } from '../../../src/transport/connection-pools.js';

const env = useControlPlane('tls-session');
const pools = new ConnectionPools(true);
afterAll(() => pools.close());

describe('TLS sessions with the kube-apiserver', () => {
  it('resumes the first connection’s session on the next ones, each still authenticated', async () => {
    const options: https.RequestOptions = {};
    await env.kubeConfig.applyToHTTPSOptions(options);
    const server = new URL(env.kubeConfig.getCurrentCluster()?.server ?? '');
    const pool = pools.for(options, server);
    const headers = {
      ...(options.headers as Record<string, string> | undefined),
      Accept: 'application/json',
    };
    const review = () =>
      pool.request({
        method: 'POST',
        path: '/apis/authentication.k8s.io/v1/selfsubjectreviews',
        headers: { ...headers, 'Content-Type': 'application/json' },
        body: JSON.stringify({ apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' }),
      });
    const first = await review();
    expect(first.status).toBe(201);
    // Four at once: the idle connection and three new ones.
    const answers = await Promise.all([review(), review(), review(), review()]);
    const users = answers.map((a) => {
      expect(a.status).toBe(201);
      return JSON.parse(a.body.toString()).status.userInfo.username as string;
    });
    const firstUser = JSON.parse(first.body.toString()).status.userInfo.username as string;
    expect(firstUser).not.toBe('system:anonymous');
    expect(users).toEqual([firstUser, firstUser, firstUser, firstUser]);
    expect(pool.handshakes).toEqual({ full: 1, resumed: 3 });
  });
});
