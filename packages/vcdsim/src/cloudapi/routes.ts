/** CloudAPI (`/cloudapi/…`, JSON) routes. */
import type { Router } from '../server/router.js';
import type { Simulator } from '../simulator.js';

/** Registers every CloudAPI route except sessions (which live with authentication). */
export function cloudApiRoutes(_r: Router, _sim: Simulator): void {}
