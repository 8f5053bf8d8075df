/** The JSON object body of an inspection request. */
import { errors } from '../server/errors.js';
import type { Ctx } from '../server/http.js';

/** The request's body as a JSON object (empty is `{}`); anything else is a 400. */
export async function jsonBody(ctx: Ctx): Promise<Record<string, unknown>> {
  try {
    const v = JSON.parse((await ctx.body()).toString('utf8') || '{}') as unknown;
    if (!v || typeof v !== 'object' || Array.isArray(v)) throw new Error('not an object');
    return v as Record<string, unknown>;
  } catch (e) {
    throw errors.badRequest(`The body is not a JSON object: ${(e as Error).message}`);
  }
}
