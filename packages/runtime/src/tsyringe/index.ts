/**
 * An opt-in tsyringe adapter (`@capstan/runtime/tsyringe`) for those who build their reconcilers
 * from a dependency-injection container: a manager's client, cache, event recorder, logger,
 * metrics and clock, registered under the tokens below, and a reconciler class built from them.
 * Nothing else in the runtime imports this module, so tsyringe and reflect-metadata (optional peer
 * dependencies) load only for a program that imports it; the rest of the house passes what a
 * reconciler needs to its constructor by hand. Decorators need `experimentalDecorators` and
 * `emitDecoratorMetadata` in the tsconfig of the code that uses them, not the runtime's.
 */
import 'reflect-metadata';
import { type DependencyContainer, type InjectionToken, container as rootContainer } from 'tsyringe';
import { InformerCache } from '../cache/informer-cache.js';
import { Client } from '../client/client.js';
import type { Clock } from '../clock.js';
import type { Reconciler } from '../controller/reconciler.js';
import { EventRecorder } from '../helpers/event-recorder.js';
import type { Logger } from '../log/logger.js';
import { Manager } from '../manager/manager.js';
import { MetricsRegistry } from '../manager/metrics-registry.js';

/** The manager itself. */
export const MANAGER: InjectionToken<Manager> = Symbol.for('@capstan/runtime:Manager');
/** The manager's {@link Client} (its class is registered as a token too). */
export const CLIENT: InjectionToken<Client> = Symbol.for('@capstan/runtime:Client');
/** The manager's {@link InformerCache} (its class is registered as a token too). */
export const CACHE: InjectionToken<InformerCache> = Symbol.for('@capstan/runtime:InformerCache');
/** The manager's {@link EventRecorder} (its class is registered as a token too). */
export const EVENTS: InjectionToken<EventRecorder> = Symbol.for('@capstan/runtime:EventRecorder');
/** The manager's {@link Logger}: an interface, so only this token names it. */
export const LOGGER: InjectionToken<Logger> = Symbol.for('@capstan/runtime:Logger');
/** The manager's {@link MetricsRegistry} (its class is registered as a token too). */
export const METRICS: InjectionToken<MetricsRegistry> = Symbol.for('@capstan/runtime:MetricsRegistry');
/** The manager's {@link Clock}: an interface, so only this token names it. */
export const CLOCK: InjectionToken<Clock> = Symbol.for('@capstan/runtime:Clock');

/**
 * A child of `parent` (tsyringe's root container by default) holding `manager`'s parts as values
 * under the tokens above, and the classes `Client`, `InformerCache`, `EventRecorder`,
 * `MetricsRegistry` and `Manager`, so a constructor parameter typed by one of them needs no
 * `@inject`. A child per manager: two managers in one process never share a part.
 */
export function containerFor(
  manager: Manager,
  parent: DependencyContainer = rootContainer,
): DependencyContainer {
  const child = parent.createChildContainer();
  const parts: Array<[InjectionToken<unknown>, unknown]> = [
    [MANAGER, manager],
    // Manager's constructor is private (Manager.create): a token all the same.
    [Manager as unknown as InjectionToken<Manager>, manager],
    [CLIENT, manager.client],
    [Client, manager.client],
    [CACHE, manager.cache],
    [InformerCache, manager.cache],
    [EVENTS, manager.events],
    [EventRecorder, manager.events],
    [LOGGER, manager.logger],
    [METRICS, manager.metrics],
    [MetricsRegistry, manager.metrics],
    [CLOCK, manager.clock],
  ];
  for (const [token, value] of parts) child.register(token, { useValue: value });
  return child;
}

/** A reconciler class (decorated `@injectable()`), its constructor's parameters resolved by `container`. */
export function reconcilerFrom<R extends Reconciler>(
  container: DependencyContainer,
  type: new (...args: never[]) => R,
): R {
  return container.resolve(type as unknown as InjectionToken<R>);
}
