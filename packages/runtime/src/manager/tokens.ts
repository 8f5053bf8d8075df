import type { InjectionToken } from 'tsyringe';
import type { InformerCache } from '../cache/informer-cache.js';
import type { Client } from '../client/client.js';
import type { ApiTransport } from '../client/transport.js';
import type { EventRecorder } from '../helpers/event-recorder.js';
import type { Logger } from './logger.js';
import type { MetricsRegistry } from './metrics/metrics-registry.js';

/**
 * Injection tokens of the manager's container. Reconcilers take what they need with
 * `@inject(Tokens.Client)` and so on; naming the token on every parameter works even where no
 * decorator metadata is emitted (tsx, esbuild). The classes themselves are registered too, for
 * code built with `emitDecoratorMetadata`.
 */
export const Tokens = {
  KubeConfig: Symbol.for('capstan.KubeConfig'),
  Transport: Symbol.for('capstan.Transport') as InjectionToken<ApiTransport>,
  Client: Symbol.for('capstan.Client') as InjectionToken<Client>,
  Cache: Symbol.for('capstan.Cache') as InjectionToken<InformerCache>,
  EventRecorder: Symbol.for('capstan.EventRecorder') as InjectionToken<EventRecorder>,
  Logger: Symbol.for('capstan.Logger') as InjectionToken<Logger>,
  Metrics: Symbol.for('capstan.Metrics') as InjectionToken<MetricsRegistry>,
  Manager: Symbol.for('capstan.Manager'),
} as const;
