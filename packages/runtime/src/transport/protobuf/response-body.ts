/**
 * Reading an answer's body by its Content-Type: JSON, or Kubernetes' protobuf for the built-in
 * kinds the transport asked it for. Error bodies come back as JSON text either way, for
 * {@link errorFromResponse}.
 */
import type { IncomingMessage } from 'node:http';
import { decodeObject, isProtobuf } from './envelope.js';

/**
 * The value of a 2xx answer's body; `undefined` for an empty one.
 * @throws Error for a body that is neither JSON nor a protobuf object the runtime can read.
 */
export function decodeBody(body: Buffer, contentType: string | undefined): unknown {
  if (isProtobuf(contentType)) return body.length === 0 ? undefined : decodeObject(body);
  const text = body.toString('utf8');
  return text.trim() === '' ? undefined : JSON.parse(text);
}

/**
 * The text of an error answer: a protobuf Status as its JSON, anything else as it came; an
 * unreadable protobuf body as a note, so the error still says what the server answered.
 */
export function errorBodyText(body: Buffer, contentType: string | undefined): string {
  if (!isProtobuf(contentType)) return body.toString('utf8');
  try {
    return JSON.stringify(decodeObject(body));
  } catch (err) {
    return `(a protobuf body the runtime cannot read: ${(err as Error).message})`;
  }
}

/** The whole body of an answer. */
export function readAll(stream: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    stream.on('data', (chunk: Buffer) => chunks.push(chunk));
    stream.on('end', () => resolve(Buffer.concat(chunks)));
    stream.on('error', reject);
  });
}
