/** CloudAPI (`/cloudapi/…`, JSON) routes. */
import type { Router } from '../server/router.js';
import type { Simulator } from '../simulator.js';
import { albRoutes } from './alb.js';
import { networkingRoutes } from './networking.js';

/** Registers every CloudAPI route except sessions (which live with authentication). */
export function cloudApiRoutes(r: Router, sim: Simulator): void {
  networkingRoutes(r, sim);
  albRoutes(r, sim);
}
