/**
 * The serving certificate, read from `tls.crt` and `tls.key` in a folder and read again whenever
 * they change, as cert-manager (or a Secret volume's `..data` symlink swap) rotates them. Changes
 * are seen through `fs.watch` on the folder and, because watches can miss events (network file
 * systems, a replaced folder), by polling as well. A pair that does not load (half-written, key
 * not matching) keeps the previous one in service and is tried again on the next change.
 */
import { createHash } from 'node:crypto';
import { type FSWatcher, readFileSync, watch } from 'node:fs';
import { join } from 'node:path';
import { createSecureContext, type SecureContext } from 'node:tls';
import type { Logger } from '../log/logger.js';

/** Options of a {@link CertWatcher}. */
export interface CertWatcherOptions {
  certDir: string;
  /** Default `tls.crt`. */
  certName?: string;
  /** Default `tls.key`. */
  keyName?: string;
  /** How often to compare the files besides watching them. Default 10 s. */
  pollIntervalMs?: number;
  logger?: Logger;
  /** What serves with it, for messages. Default `webhook server`. */
  purpose?: string;
  /** The flag that names the folder, for the error when it does not load. Default `--webhook-cert-dir`. */
  flag?: string;
}

/** A loaded pair. */
export interface ServingCert {
  cert: Buffer;
  key: Buffer;
  context: SecureContext;
  /** SHA-256 of certificate and key, to notice a change. */
  digest: string;
}

/** Where a server gets its serving pair: started once, told of each new pair, stopped. */
export interface ServingCertSource {
  start(): ServingCert;
  onReload(listener: (cert: ServingCert) => void): void;
  stop(): void;
}

/** Holds the current serving certificate and reloads it when its files change. */
export class CertWatcher implements ServingCertSource {
  private current: ServingCert | undefined;
  private watcher: FSWatcher | undefined;
  private poller: ReturnType<typeof setInterval> | undefined;
  private debounce: ReturnType<typeof setTimeout> | undefined;
  private readonly listeners: Array<(cert: ServingCert) => void> = [];

  constructor(private readonly options: CertWatcherOptions) {}

  private get purpose(): string {
    return this.options.purpose ?? 'webhook server';
  }

  private get certPath(): string {
    return join(this.options.certDir, this.options.certName ?? 'tls.crt');
  }

  private get keyPath(): string {
    return join(this.options.certDir, this.options.keyName ?? 'tls.key');
  }

  /** The pair in service; throws before {@link CertWatcher.start}. */
  get cert(): ServingCert {
    if (!this.current) throw new Error('the serving certificate is not loaded yet');
    return this.current;
  }

  /** Called with each newly loaded pair (not the first). */
  onReload(listener: (cert: ServingCert) => void): void {
    this.listeners.push(listener);
  }

  /**
   * Loads the pair (throwing a message that names the folder and the flag if it cannot), then
   * watches for changes until {@link CertWatcher.stop}.
   */
  start(): ServingCert {
    try {
      this.current = this.load();
    } catch (err) {
      throw new Error(
        `${this.purpose}: cannot load the serving certificate ${this.certPath} and key ${this.keyPath}: ` +
          `${(err as Error).message} (${this.options.flag ?? '--webhook-cert-dir'} must hold them)`,
        { cause: err },
      );
    }
    try {
      this.watcher = watch(this.options.certDir, () => this.changed());
      this.watcher.on('error', () => {}); // polling still notices changes
    } catch {
      // Watching is an optimisation; polling alone is correct.
    }
    this.poller = setInterval(() => this.reload(), this.options.pollIntervalMs ?? 10_000);
    this.poller.unref();
    return this.current;
  }

  stop(): void {
    this.watcher?.close();
    this.watcher = undefined;
    if (this.poller) clearInterval(this.poller);
    if (this.debounce) clearTimeout(this.debounce);
    this.poller = this.debounce = undefined;
  }

  /** Reads the files again now; returns whether a new pair went into service. */
  reload(): boolean {
    let next: ServingCert;
    try {
      next = this.load();
    } catch (err) {
      this.options.logger?.warn(
        { err, certDir: this.options.certDir },
        `${this.purpose}: serving certificate did not load; keeping the previous one`,
      );
      return false;
    }
    if (next.digest === this.current?.digest) return false;
    this.current = next;
    this.options.logger?.info(
      { certDir: this.options.certDir },
      `${this.purpose}: serving certificate reloaded`,
    );
    for (const listener of this.listeners) listener(next);
    return true;
  }

  // Writers replace cert and key one after the other: wait for the burst to settle.
  private changed(): void {
    if (this.debounce) clearTimeout(this.debounce);
    this.debounce = setTimeout(() => this.reload(), 100);
    this.debounce.unref();
  }

  private load(): ServingCert {
    const cert = readFileSync(this.certPath);
    const key = readFileSync(this.keyPath);
    const context = createSecureContext({ cert, key }); // throws if they do not match
    const digest = createHash('sha256').update(cert).update(key).digest('hex');
    return { cert, key, context, digest };
  }
}
