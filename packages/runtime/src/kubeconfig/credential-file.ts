/**
 * Files that hold credentials (CA bundle, client certificate and key, bearer token), read when a
 * request needs them and read again when they change: the kubelet rotates projected service
 * account tokens by swapping a symlink, cert-manager rewrites certificates in place. A stat per
 * request tells; the content is read only when size, mtime or inode differ.
 *
 * If a file that was read once cannot be read now (a rotation caught half way), the last content
 * is used, as client-go's cached token source does; a file never read fails the request.
 */
import { readFileSync, statSync } from 'node:fs';

interface Cached {
  stamp: string;
  content: Buffer;
}

const cache = new Map<string, Cached>();

/** The current content of `path`. @throws Error (one line, naming `what`) when never readable. */
export function readCredentialFile(path: string, what: string): Buffer {
  const cached = cache.get(path);
  try {
    const st = statSync(path);
    const stamp = `${st.ino}:${st.size}:${st.mtimeMs}`;
    if (cached?.stamp === stamp) return cached.content;
    const content = readFileSync(path);
    cache.set(path, { stamp, content });
    return content;
  } catch (err) {
    if (cached) return cached.content;
    const reason = (err as NodeJS.ErrnoException).code ?? (err as Error).message;
    throw new Error(`cannot read ${what} ${path}: ${reason}`);
  }
}

/** A bearer token file's token: its content without surrounding white space. */
export function readTokenFile(path: string, what: string): string {
  const token = readCredentialFile(path, what).toString('utf8').trim();
  if (token === '') throw new Error(`${what} ${path} is empty`);
  return token;
}
