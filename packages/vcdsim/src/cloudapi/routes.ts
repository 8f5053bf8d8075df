/** CloudAPI (`/cloudapi/…`, JSON) routes. */
import type { Router } from '../server/router.js';
import type { Simulator } from '../simulator.js';
import { poolRoutes } from './alb-pools.js';
import { virtualServiceRoutes } from './alb-virtual-services.js';
import { ipSpaceRoutes } from './ip-spaces.js';
import { networkingRoutes } from './networking.js';

/** Registers every CloudAPI route except sessions (which live with authentication). */
export function cloudApiRoutes(r: Router, sim: Simulator): void {
  networkingRoutes(r, sim);
  ipSpaceRoutes(r, sim);
  poolRoutes(r, sim);
  virtualServiceRoutes(r, sim);
}
