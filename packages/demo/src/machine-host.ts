/**
 * A simulated node below its agent, shared by the demo and the fault suite: a private dbus-daemon
 * carrying a test update_engine and a test logind, a directory with the machine's os-release and
 * boot ID files, and the boots it went through. logind's Reboot takes the machine down (the agent
 * stops, update_engine stops, the kwok Node goes NotReady with its pods), then boots it again with
 * a new boot ID and the staged OS version, and starts the agent again, as a real reboot would.
 *
 * How the agent runs is the subclass's: the demo runs it in its own process, the fault suite as a
 * child process it can kill (see {@link MachineHost.startAgent} and {@link MachineHost.stopAgent}).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FakeLogind, FakeUpdateEngine, type PrivateBus, startPrivateBus, UpdateStatus } from '@capstan/agent';
import type { ControlPlane } from '@capstan/envtest';

/** What a {@link MachineHost} needs besides its parts. */
export interface MachineHostOptions {
  /** Node name. */
  name: string;
  /** OS version before the update. */
  version: string;
  /** The control plane, with kwok, that holds the machine's Node. */
  plane: ControlPlane;
  /** How long a reboot keeps the node down. */
  rebootDownMs: number;
  /**
   * Runs the machine's own apiserver requests (the fault suite holds them back while it restarts
   * the apiserver, so the simulation itself never fails on a restart). Default: runs them as they are.
   */
  request?: <T>(call: () => Promise<T>) => Promise<T>;
  /** Called when something in the simulation itself fails. */
  onFault: (what: string, err: unknown) => void;
}

/** The machine's directory, its bus and the services on it (see {@link MachineHost.open}). */
export interface MachineParts {
  dir: string;
  bus: PrivateBus;
  engine: FakeUpdateEngine;
  logind: FakeLogind;
}

/** Why the agent is stopped: the machine shuts down (for a reboot), or the run ends. */
export type AgentStop = 'shutdown' | 'end';

/** The image kwok's Node reports for an OS version. */
export const osImage = (version: string): string => `Flatcar Container Linux ${version}`;

const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A node with its own D-Bus, update_engine and logind; the agent is the subclass's. See the file comment. */
export abstract class MachineHost {
  /** Boot IDs in the order the machine booted them. */
  readonly bootIDs: string[] = [];
  /** Versions booted, in order. */
  readonly versions: string[] = [];
  /** Time between logind's Reboot and the machine going down (the shutdown); default 0. */
  shutdownMs = 0;
  /** The machine's own directory: os-release, boot ID file, whatever the agent needs beside. */
  protected readonly dir: string;
  protected readonly bus: PrivateBus;
  private readonly engine: FakeUpdateEngine;
  private readonly logind: FakeLogind;
  private rebooting: Promise<void> | undefined;
  private readonly rebootListeners: Array<() => void> = [];
  private ended = false;

  /** Makes the machine's directory (under the system's temporary one), starts its bus and services. */
  protected static async open(name: string, dirPrefix: string): Promise<MachineParts> {
    const dir = mkdtempSync(join(tmpdir(), `${dirPrefix}-${name}-`));
    const bus = await startPrivateBus(dir);
    const engine = await FakeUpdateEngine.start({ address: bus.address });
    const logind = await FakeLogind.start({ address: bus.address });
    return { dir, bus, engine, logind };
  }

  protected constructor(
    private readonly host: MachineHostOptions,
    parts: MachineParts,
  ) {
    this.dir = parts.dir;
    this.bus = parts.bus;
    this.engine = parts.engine;
    this.logind = parts.logind;
    this.logind.onReboot(() => this.reboot());
  }

  /** Starts the agent after a boot (os-release and the boot ID file are written). */
  protected abstract startAgent(): void;

  /** Stops the agent: as systemd does at a `shutdown`, or at once when the run `end`s. */
  protected abstract stopAgent(why: AgentStop): Promise<void>;

  get name(): string {
    return this.host.name;
  }

  /** Whether {@link stop} was called: nothing boots or starts again. */
  protected get stopped(): boolean {
    return this.ended;
  }

  /** The os-release file the agent reads. */
  protected get osReleasePath(): string {
    return join(this.dir, 'os-release');
  }

  /** The boot ID file (the machine's `/proc/sys/kernel/random/boot_id`). */
  protected get bootIdPath(): string {
    return join(this.dir, 'boot_id');
  }

  /** Reboot requests logind accepted (a second one while shutting down changes nothing). */
  get rebootRequests(): number {
    return this.logind.reboots.length;
  }

  /** update_engine has downloaded and staged `version`: it now says a reboot is needed. */
  stageUpdate(version: string): void {
    this.engine.setStatus({
      operation: UpdateStatus.UpdatedNeedReboot,
      newVersion: version,
      progress: 1,
      lastCheckedTime: Math.floor(Date.now() / 1000),
    });
  }

  /** Resolves when logind next accepts a Reboot. */
  rebootRequested(): Promise<void> {
    return new Promise((resolve) => this.rebootListeners.push(resolve));
  }

  /**
   * Waits for a reboot in progress (at most `rebootGraceMs`: it may wait on an apiserver that is
   * gone), then stops the agent, the services and the bus, and removes the machine's directory.
   */
  async stop(rebootGraceMs = Number.POSITIVE_INFINITY): Promise<void> {
    this.ended = true;
    const rebooting = this.rebooting?.catch(() => {});
    await (Number.isFinite(rebootGraceMs) ? Promise.race([rebooting, delay(rebootGraceMs)]) : rebooting);
    await this.stopAgent('end').catch(() => {});
    await this.logind.stop().catch(() => {});
    await this.engine.stop().catch(() => {});
    await this.bus.stop().catch(() => {});
    rmSync(this.dir, { recursive: true, force: true });
  }

  /** The first boot: the Node is Ready with `bootID`, the machine runs its initial version. */
  protected powerOn(bootID: string): void {
    this.boot(this.host.version, bootID);
  }

  /** logind's Reboot (not awaited by logind's caller). A second request while going down is ignored. */
  private reboot(): Promise<void> {
    for (const listener of this.rebootListeners.splice(0)) listener();
    if (this.rebooting) return this.rebooting;
    const request = this.host.request ?? ((call) => call());
    const run = (async () => {
      if (this.shutdownMs > 0) await delay(this.shutdownMs);
      // The OS goes down: the agent stops with it.
      await this.stopAgent('shutdown');
      const next = this.engine.status.newVersion || this.versions.at(-1) || this.host.version;
      await this.engine.stop();
      // After the reboot update_engine runs the new version and has nothing pending.
      this.engine.status = { ...this.engine.status, currentOperation: UpdateStatus.Idle, newVersion: '' };
      if (this.ended) return;
      // The node is NotReady while down, then Ready with a new boot ID and its pods running again.
      const bootID = await request(() =>
        this.host.plane.rebootNode(this.name, {
          downMs: this.host.rebootDownMs,
          osImage: osImage(next),
          timeoutMs: 60_000,
        }),
      );
      if (this.ended) return;
      await this.engine.start();
      this.boot(next, bootID);
    })();
    this.rebooting = run
      .catch((err) => this.host.onFault(`rebooting ${this.name}`, err))
      .finally(() => {
        this.rebooting = undefined;
      });
    return this.rebooting;
  }

  /** A boot with `bootID`: the boot ID file and os-release of `version` written, the agent started. */
  private boot(version: string, bootID: string): void {
    writeFileSync(this.bootIdPath, `${bootID}\n`);
    writeFileSync(
      this.osReleasePath,
      `NAME="Flatcar Container Linux by Kinvolk"\nID=flatcar\nVERSION=${version}\nVERSION_ID=${version}\n`,
    );
    this.bootIDs.push(bootID);
    this.versions.push(version);
    this.startAgent();
  }
}
