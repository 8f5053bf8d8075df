/**
 * The manager's controller builder: what it builds is registered with the manager (a controller to
 * run, admission webhooks to serve).
 */

import type { ResourceType } from '../api/types.js';
import type { InformerCache } from '../cache/informer-cache.js';
import { type AdmissionWebhooks, ControllerBuilder } from '../controller/builder.js';
import type { Controller } from '../controller/controller.js';
import type { WebhookServer } from '../webhook/server.js';

/** What the builder registers with: a manager. */
export interface ControllerRegistry {
  readonly webhooks: WebhookServer;
  addController(controller: Controller): void;
}

/** A controller builder that registers what it builds with its manager. */
export class ManagedControllerBuilder extends ControllerBuilder {
  constructor(
    private readonly manager: ControllerRegistry,
    cache: InformerCache,
    deps: ConstructorParameters<typeof ControllerBuilder>[1],
    restriction: ConstructorParameters<typeof ControllerBuilder>[2],
  ) {
    super(cache, deps, restriction);
  }

  protected override registerWebhooks(forType: ResourceType, webhooks: AdmissionWebhooks): void {
    const { defaulter, validator } = webhooks;
    if (defaulter) this.manager.webhooks.addDefaulter(forType, defaulter.defaulter, defaulter.options);
    if (validator) this.manager.webhooks.addValidator(forType, validator.validator, validator.options);
  }

  override build(...args: Parameters<ControllerBuilder['build']>): Controller {
    const controller = super.build(...args);
    this.manager.addController(controller);
    return controller;
  }
}
