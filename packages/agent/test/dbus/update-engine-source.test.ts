import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BusConnection } from '../../src/dbus/connection.js';
import {
  UPDATE_ENGINE_INTERFACE,
  UPDATE_ENGINE_NAME,
  UPDATE_ENGINE_PATH,
  UpdateStatus,
} from '../../src/dbus/update-engine.js';
import { UpdateEngineSource } from '../../src/sources/update-engine-source.js';
import { FakeUpdateEngine } from '../../src/testing/fake-update-engine.js';
import { type PrivateBus, startPrivateBus } from '../../src/testing/private-bus.js';
import { recorder, waitFor } from './helpers.js';

const FAST = { retryMinMs: 20, retryMaxMs: 200, callTimeoutMs: 2_000 };

describe('UpdateEngineSource against a real dbus-daemon', () => {
  let bus: PrivateBus;
  let engine: FakeUpdateEngine | undefined;
  let source: UpdateEngineSource | undefined;

  beforeEach(async () => {
    bus = await startPrivateBus();
  });
  afterEach(async () => {
    await source?.stop();
    await engine?.stop();
    await bus.stop();
    source = undefined;
    engine = undefined;
  });

  it('reads GetStatus at start when NEED_REBOOT is already set', async () => {
    engine = await FakeUpdateEngine.start({
      address: bus.address,
      initial: {
        operation: UpdateStatus.UpdatedNeedReboot,
        newVersion: '3975.2.1',
        lastCheckedTime: 1_700_000_000,
        newSize: 123_456_789,
      },
    });
    source = new UpdateEngineSource({ address: bus.address, ...FAST });
    const rec = recorder();
    await source.start(rec.onChange);
    // start() resolves only after the first real status was delivered.
    expect(rec.statuses).toEqual([
      {
        rebootNeeded: true,
        status: 'UPDATE_STATUS_UPDATED_NEED_REBOOT',
        newVersion: '3975.2.1',
        lastCheckedTime: 1_700_000_000n,
      },
    ]);
    expect(typeof rec.last()?.lastCheckedTime).toBe('bigint');
  });

  it('follows StatusUpdate signals with the right values', async () => {
    engine = await FakeUpdateEngine.start({ address: bus.address });
    source = new UpdateEngineSource({ address: bus.address, ...FAST });
    const rec = recorder();
    await source.start(rec.onChange);
    expect(rec.last()).toEqual({
      rebootNeeded: false,
      status: UpdateStatus.Idle,
      newVersion: '',
      lastCheckedTime: 0n,
    });

    engine.setStatus({
      operation: UpdateStatus.Downloading,
      progress: 0.5,
      newVersion: '4000.0.0',
      lastCheckedTime: 1_712_345_678n,
    });
    await waitFor('DOWNLOADING', rec.last, (s) => s?.status === UpdateStatus.Downloading);
    expect(rec.last()).toEqual({
      rebootNeeded: false,
      status: UpdateStatus.Downloading,
      newVersion: '4000.0.0',
      lastCheckedTime: 1_712_345_678n,
    });

    // A value above 2^53 proves int64 travels as BigInt end to end.
    const big = 2n ** 60n + 7n;
    engine.setStatus({ operation: UpdateStatus.UpdatedNeedReboot, lastCheckedTime: big });
    const needed = await waitFor('NEED_REBOOT', rec.last, (s) => s?.rebootNeeded === true);
    expect(needed).toEqual({
      rebootNeeded: true,
      status: UpdateStatus.UpdatedNeedReboot,
      newVersion: '4000.0.0',
      lastCheckedTime: big,
    });

    engine.setStatus({ operation: UpdateStatus.Idle });
    await waitFor('back to idle', rec.last, (s) => s?.rebootNeeded === false);
    expect(rec.statuses.map((s) => s.status)).toEqual([
      UpdateStatus.Idle,
      UpdateStatus.Downloading,
      UpdateStatus.UpdatedNeedReboot,
      UpdateStatus.Idle,
    ]);
  });

  it('survives update_engine restarting mid-watch and re-reads its status', async () => {
    engine = await FakeUpdateEngine.start({ address: bus.address, keepNeedRebootAcrossRestart: true });
    source = new UpdateEngineSource({ address: bus.address, ...FAST });
    const rec = recorder();
    await source.start(rec.onChange);

    await engine.stop();
    const gone = await waitFor('error while update_engine is gone', rec.last, (s) => s?.error !== undefined);
    expect(gone?.error).toMatch(/left the bus|not running/);
    expect(gone?.rebootNeeded).toBe(false);

    // Comes back already needing a reboot (the marker survived): no signal, only GetStatus can tell.
    engine.status = {
      ...engine.status,
      currentOperation: UpdateStatus.UpdatedNeedReboot,
      newVersion: '4100.1.0',
    };
    await engine.start();
    const back = await waitFor(
      'status after restart',
      rec.last,
      (s) => s?.error === undefined && s?.rebootNeeded === true,
    );
    expect(back).toEqual({
      rebootNeeded: true,
      status: UpdateStatus.UpdatedNeedReboot,
      newVersion: '4100.1.0',
      lastCheckedTime: 0n,
    });

    // Signals from the new instance are followed too.
    engine.setStatus({ operation: UpdateStatus.ReportingErrorEvent });
    await waitFor(
      'signal from the new instance',
      rec.last,
      (s) => s?.status === UpdateStatus.ReportingErrorEvent,
    );
  });

  it('keeps NEED_REBOOT across a restart only when the fake is told to (marker-like)', async () => {
    engine = await FakeUpdateEngine.start({ address: bus.address, keepNeedRebootAcrossRestart: true });
    engine.setStatus({ operation: UpdateStatus.UpdatedNeedReboot });
    await engine.stop();
    await engine.start();
    expect(engine.status.currentOperation).toBe(UpdateStatus.UpdatedNeedReboot);
    await engine.stop();

    const forgetful = await FakeUpdateEngine.start({
      address: bus.address,
      keepNeedRebootAcrossRestart: false,
    });
    forgetful.setStatus({ operation: UpdateStatus.UpdatedNeedReboot });
    await forgetful.stop();
    await forgetful.start();
    expect(forgetful.status.currentOperation).toBe(UpdateStatus.Idle);
    await forgetful.stop();
  });

  it('picks up update_engine when it appears after the source started', async () => {
    source = new UpdateEngineSource({ address: bus.address, ...FAST });
    const rec = recorder();
    await source.start(rec.onChange);
    expect(rec.last()).toMatchObject({ rebootNeeded: false, error: expect.stringMatching(/not running/) });

    engine = await FakeUpdateEngine.start({
      address: bus.address,
      initial: { operation: UpdateStatus.UpdatedNeedReboot, newVersion: '4200.0.0', lastCheckedTime: 42 },
    });
    const seen = await waitFor(
      'late update_engine',
      rec.last,
      (s) => s?.rebootNeeded === true && s.error === undefined,
    );
    expect(seen).toEqual({
      rebootNeeded: true,
      status: UpdateStatus.UpdatedNeedReboot,
      newVersion: '4200.0.0',
      lastCheckedTime: 42n,
    });
  });

  it('ignores StatusUpdate signals that do not come from the owner of com.coreos.update1', async () => {
    engine = await FakeUpdateEngine.start({ address: bus.address });
    source = new UpdateEngineSource({ address: bus.address, ...FAST });
    const rec = recorder();
    await source.start(rec.onChange);

    // An impostor broadcasts a NEED_REBOOT signal on the same path and interface.
    const impostor = await BusConnection.open({ address: bus.address });
    const { default: dbus } = await import('dbus-next');
    impostor.bus.send(
      dbus.Message.newSignal(UPDATE_ENGINE_PATH, UPDATE_ENGINE_INTERFACE, 'StatusUpdate', 'xdssx', [
        1n,
        0,
        UpdateStatus.UpdatedNeedReboot,
        'evil',
        0n,
      ]),
    );
    // Then the real one speaks; once its signal is seen, the impostor's (sent earlier) was dropped.
    engine.setStatus({ operation: UpdateStatus.CheckingForUpdate });
    await waitFor('real signal', rec.last, (s) => s?.status === UpdateStatus.CheckingForUpdate);
    expect(rec.statuses.some((s) => s.rebootNeeded)).toBe(false);
    impostor.close();
  });

  it('reports an error while the bus is gone, reconnects and re-subscribes when it returns', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'capstan-bus-restart-'));
    try {
      await bus.stop();
      bus = await startPrivateBus(dir);
      // The guid changes when the daemon restarts: connect by socket path only.
      const address = `unix:path=${bus.socketPath}`;
      engine = await FakeUpdateEngine.start({
        address,
        initial: { operation: UpdateStatus.UpdatedNeedReboot },
      });
      source = new UpdateEngineSource({ address, ...FAST });
      const rec = recorder();
      await source.start(rec.onChange);
      expect(rec.last()?.rebootNeeded).toBe(true);

      await bus.stop();
      // update_engine may be seen leaving first; then the connection itself is lost.
      const down = await waitFor('error while the bus is down', rec.last, (s) =>
        /D-Bus/.test(s?.error ?? ''),
      );
      // The last known fact is kept while we cannot tell.
      expect(down?.rebootNeeded).toBe(true);

      // Let a few reconnect attempts fail against the missing socket.
      await new Promise((r) => setTimeout(r, 150));
      bus = await startPrivateBus(dir);
      engine = await FakeUpdateEngine.start({
        address,
        initial: { operation: UpdateStatus.Idle, newVersion: '' },
      });
      await waitFor(
        'recovered after bus restart',
        rec.last,
        (s) => s?.error === undefined && s?.status === UpdateStatus.Idle,
      );

      // Re-subscribed: signals flow again.
      engine.setStatus({ operation: UpdateStatus.UpdatedNeedReboot, newVersion: '5000.0.0' });
      const again = await waitFor('signal after bus restart', rec.last, (s) => s?.rebootNeeded === true);
      expect(again).toMatchObject({ status: UpdateStatus.UpdatedNeedReboot, newVersion: '5000.0.0' });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('reports nothing after stop()', async () => {
    engine = await FakeUpdateEngine.start({ address: bus.address });
    source = new UpdateEngineSource({ address: bus.address, ...FAST });
    const rec = recorder();
    await source.start(rec.onChange);
    await source.stop();
    const count = rec.statuses.length;
    engine.setStatus({ operation: UpdateStatus.UpdatedNeedReboot });
    await new Promise((r) => setTimeout(r, 100));
    expect(rec.statuses.length).toBe(count);
  });

  it('the fake validates a status before emitting it', async () => {
    engine = await FakeUpdateEngine.start({ address: bus.address });
    expect(() => engine?.setStatus({ lastCheckedTime: 1.5 })).toThrow(/integer/);
    expect(() => engine?.setStatus({ progress: Number.NaN })).toThrow(/finite/);
    expect(engine.status.currentOperation).toBe(UpdateStatus.Idle);
    expect(engine.running).toBe(true);
  });

  it('exposes update_engine under its real names', async () => {
    engine = await FakeUpdateEngine.start({
      address: bus.address,
      initial: { operation: UpdateStatus.Verifying, newSize: 99 },
    });
    const client = await BusConnection.open({ address: bus.address });
    try {
      const reply = await client.call({
        destination: UPDATE_ENGINE_NAME,
        path: UPDATE_ENGINE_PATH,
        interface: UPDATE_ENGINE_INTERFACE,
        member: 'GetStatus',
      });
      expect(reply.signature).toBe('xdssx');
      expect(reply.body).toEqual([0n, 0, UpdateStatus.Verifying, '', 99n]);
      await client.call({
        destination: UPDATE_ENGINE_NAME,
        path: UPDATE_ENGINE_PATH,
        interface: UPDATE_ENGINE_INTERFACE,
        member: 'AttemptUpdate',
      });
      await client.call({
        destination: UPDATE_ENGINE_NAME,
        path: UPDATE_ENGINE_PATH,
        interface: UPDATE_ENGINE_INTERFACE,
        member: 'ResetStatus',
      });
      expect(engine.attemptUpdateCalls).toBe(1);
      expect(engine.resetStatusCalls).toBe(1);
      expect(engine.status.currentOperation).toBe(UpdateStatus.Idle);
    } finally {
      client.close();
    }
  });
});
