/**
 * An administrator asks for a reboot (reboot-requested, with a reason) on a node whose
 * update_engine has nothing to install: the agent asks, drains and reboots through logind once
 * granted, and removes the request once the node is back, so it reboots exactly once. A private
 * dbus-daemon carries the fake update_engine and logind.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { useControlPlane } from '@capstan/envtest/vitest';
import { ADMIN_REBOOT_REQUEST_ANNOTATION, capstanProtocol, coordinatorKeys } from '@capstan/reboot-protocol';
import { Client } from '@capstan/runtime';
import { HttpTransport, Node } from '@capstan/runtime/client';
import { eventually } from '@capstan/runtime/testing';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { INITIAL_MEMORY } from '../src/api/index.js';
import { decide } from '../src/decide/decide.js';
import { startAgent } from '../src/operator.js';
import { type FakeHost, startFakeHost, stopFakeHost } from './dbus/helpers.js';
import { midCycleAnnotations, UNTIMED } from './fixtures.js';
import { agentIdentity, annotate, createNode, setBootID, uniqueName } from './helpers.js';

const env = useControlPlane('agent-admin-request');
let admin: Client;
let dir: string;
let host: FakeHost;
beforeAll(async () => {
  admin = new Client(new HttpTransport(env.kubeConfig));
  dir = mkdtempSync(join(tmpdir(), 'capstan-admin-request-'));
  host = await startFakeHost();
});
afterAll(async () => {
  await stopFakeHost(host);
  rmSync(dir, { recursive: true, force: true });
});

describe("an administrator's reboot request", () => {
  it('reboots the node once, through the grant, and is cleared once it is back', async () => {
    const k = capstanProtocol.annotations;
    const node = uniqueName('admin-request');
    await createNode(admin, node, { bootID: 'boot-1' });
    const kubeConfig = await agentIdentity(env);
    const start = () =>
      startAgent({
        kubeConfig,
        nodeName: node,
        busAddress: host.bus.address,
        osReleasePath: join(dir, 'none'),
      });
    let agent = start();
    const annotations = async () => (await admin.get(Node, { name: node })).metadata.annotations ?? {};
    await eventually(async () => (await annotations())[k.status] === 'UPDATE_STATUS_IDLE', {
      what: 'idle, nothing to install',
      timeoutMs: 20_000,
    });
    expect((await annotations())[k.rebootNeeded]).toBe('false');

    await annotate(admin, node, { [ADMIN_REBOOT_REQUEST_ANNOTATION]: 'kernel arguments changed (CHG-1234)' });
    await eventually(async () => (await annotations())[k.rebootNeeded] === 'true', {
      what: 'the node asking',
      timeoutMs: 20_000,
    });
    const reboot = new Promise<void>((resolve) => host.logind.onReboot(() => resolve()));
    await annotate(admin, node, { [k.rebootOk]: 'true', [coordinatorKeys.grantedBootId]: 'boot-1' });
    await reboot;

    // Back from the reboot: the request is done.
    await agent.stop();
    await setBootID(admin, node, 'boot-2');
    agent = start();
    try {
      await eventually(
        async () => {
          const a = await annotations();
          return a[ADMIN_REBOOT_REQUEST_ANNOTATION] === undefined && a[k.rebootInProgress] === 'false';
        },
        { what: 'the request cleared', timeoutMs: 20_000 },
      );
      await annotate(admin, node, { [k.rebootOk]: null, [coordinatorKeys.grantedBootId]: null });
      await eventually(async () => agent.agent.state.phase === 'Idle', {
        what: 'idle again',
        timeoutMs: 20_000,
      });
      expect((await annotations())[k.rebootNeeded]).toBe('false');
      expect(host.logind.reboots).toHaveLength(1);
    } finally {
      await agent.stop();
    }
  }, 60_000);
});

describe('the request as a decision (property)', () => {
  it('the node asks iff its source or a non-empty request does; the start after the reboot drops it', () => {
    const k = capstanProtocol.annotations;
    const config = UNTIMED;
    fc.assert(
      fc.property(
        fc.boolean(),
        fc.option(fc.constantFrom('', 'CHG-1', 'firmware'), { nil: undefined }),
        (source, request) => {
          const annotations: Record<string, string> =
            request === undefined ? {} : { [ADMIN_REBOOT_REQUEST_ANNOTATION]: request };
          const view = (extra: Record<string, string>, unschedulable: boolean, bootID: string) => ({
            now: 1_700_000_000_000,
            node: { name: 'n', annotations: { ...annotations, ...extra }, labels: {}, unschedulable, bootID },
            source: { rebootNeeded: source },
            sourceKnown: true,
            os: undefined,
          });
          const idle = decide(view({}, false, 'b1'), { ...INITIAL_MEMORY, booted: true }, config);
          const asks = source || !!request;
          expect(idle.action.kind === 'patch' && idle.action.patch.annotations[k.rebootNeeded]).toBe(
            asks ? 'true' : 'false',
          );
          const back = decide(view(midCycleAnnotations('b1'), true, 'b2'), INITIAL_MEMORY, config);
          const patch = back.action.kind === 'patch' ? back.action.patch : undefined;
          if (request !== undefined) expect(patch?.annotations[ADMIN_REBOOT_REQUEST_ANNOTATION]).toBeNull();
          else expect(patch?.annotations).not.toHaveProperty(ADMIN_REBOOT_REQUEST_ANNOTATION);
        },
      ),
    );
  });
});
