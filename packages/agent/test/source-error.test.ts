/**
 * A source that cannot tell is never silence: the agent writes why on its Node (`source-error`,
 * the `RebootSourceError` condition), records a Warning event and sets its metric, even before
 * the source ever answered; the error goes once the source answers. Here the sentinel file's directory is not
 * mounted (the shipped DaemonSet's old failure: a Debian node that silently never asked).
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { useControlPlane } from '@capstan/envtest/vitest';
import {
  AGENT_SOURCE_ERROR_ANNOTATION,
  AGENT_SOURCE_ERROR_CONDITION,
  capstanProtocol,
} from '@capstan/reboot-protocol';
import { Client } from '@capstan/runtime';
import { HttpTransport, Node } from '@capstan/runtime/client';
import { eventually } from '@capstan/runtime/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAgent } from '../src/operator.js';
import { SentinelFileSource } from '../src/sources/sentinel-file-source.js';
import { agentIdentity, createNode, nodeEvents, uniqueName } from './helpers.js';

const env = useControlPlane('agent-source-error');
let admin: Client;
let dir: string;
beforeAll(() => {
  admin = new Client(new HttpTransport(env.kubeConfig));
  dir = mkdtempSync(join(tmpdir(), 'capstan-source-error-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const sourceCondition = async (name: string) =>
  (await admin.get(Node, { name })).status?.conditions?.find((c) => c.type === AGENT_SOURCE_ERROR_CONDITION);

describe('a sentinel file the agent cannot look at', () => {
  it('is reported on the Node (annotation, condition, event) and in the metric, and cleared once it can look', async () => {
    const k = capstanProtocol.annotations;
    const node = uniqueName('source-error');
    await createNode(admin, node, { bootID: 'boot-1' });
    const hostRun = join(dir, 'host-run');
    const bootId = join(dir, 'boot_id');
    writeFileSync(bootId, 'boot-1\n');
    const running = startAgent({
      kubeConfig: await agentIdentity(env),
      nodeName: node,
      source: new SentinelFileSource({ path: join(hostRun, 'reboot-required'), intervalMs: 100 }),
      rebooter: { reboot: async () => {} },
      bootIdPath: bootId,
      osReleasePath: join(dir, 'no-os-release'),
    });
    try {
      const reported = await eventually(
        async () =>
          (await admin.get(Node, { name: node })).metadata.annotations?.[AGENT_SOURCE_ERROR_ANNOTATION],
        { what: 'the source error on the Node', timeoutMs: 20_000 },
      );
      expect(reported).toContain(
        `directory ${hostRun} does not exist; mount the host's /run read-only at /host/run`,
      );
      expect(running.agent.state.phase).toBe('AwaitingSource');
      expect(await running.manager.metrics.text()).toMatch(/^capstan_agent_source_error 1$/m);
      const event = await eventually(
        async () => (await nodeEvents(admin, node)).find((e) => e.reason === 'SourceError'),
        { what: 'the SourceError event', timeoutMs: 20_000 },
      );
      expect(event.type).toBe('Warning');
      const condition = await eventually(async () => sourceCondition(node), {
        what: `the ${AGENT_SOURCE_ERROR_CONDITION} condition`,
        timeoutMs: 10_000,
      });
      expect(condition).toMatchObject({ status: 'True', reason: 'SourceCannotTell', message: reported });

      // The mount appears with the file in it: the Node asks, the error is gone.
      mkdirSync(hostRun);
      writeFileSync(join(hostRun, 'reboot-required'), '');
      await eventually(
        async () => {
          const a = (await admin.get(Node, { name: node })).metadata.annotations ?? {};
          return a[k.rebootNeeded] === 'true' && a[AGENT_SOURCE_ERROR_ANNOTATION] === undefined;
        },
        { what: 'reboot-needed and the error cleared', timeoutMs: 20_000 },
      );
      expect(await running.manager.metrics.text()).toMatch(/^capstan_agent_source_error 0$/m);
      await eventually(async () => (await sourceCondition(node))?.status === 'False', {
        what: `the ${AGENT_SOURCE_ERROR_CONDITION} condition False`,
        timeoutMs: 10_000,
      });
    } finally {
      await running.stop();
    }
  }, 60_000);
});
