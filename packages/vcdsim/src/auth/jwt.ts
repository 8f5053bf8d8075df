/** HS256 JSON Web Tokens, the form VCD's access tokens take. */
import { createHmac, timingSafeEqual } from 'node:crypto';

/** The claims the simulator puts in an access token. */
export interface Claims {
  /** Session id. */
  sid: string;
  /** User name. */
  sub: string;
  /** Org name. */
  org: string;
  /** Issued at and expiry, seconds since the epoch (by the simulator's clock). */
  iat: number;
  exp: number;
}

const b64url = (b: Buffer | string): string => Buffer.from(b).toString('base64url');

/** Signs claims with the secret. */
export function signJwt(claims: Claims, secret: Buffer): string {
  const head = b64url(JSON.stringify({ alg: 'HS256', typ: 'JWT' }));
  const body = b64url(JSON.stringify(claims));
  const sig = createHmac('sha256', secret).update(`${head}.${body}`).digest();
  return `${head}.${body}.${b64url(sig)}`;
}

/** The claims of a token whose signature is valid, or undefined (expiry is checked by the caller). */
export function verifyJwt(token: string, secret: Buffer): Claims | undefined {
  const parts = token.split('.');
  if (parts.length !== 3) return undefined;
  const [head, body, sig] = parts as [string, string, string];
  const want = createHmac('sha256', secret).update(`${head}.${body}`).digest();
  const got = Buffer.from(sig, 'base64url');
  if (got.length !== want.length || !timingSafeEqual(got, want)) return undefined;
  try {
    const claims = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as Claims;
    return typeof claims.sid === 'string' && typeof claims.exp === 'number' ? claims : undefined;
  } catch {
    return undefined;
  }
}
