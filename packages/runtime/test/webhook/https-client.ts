/** A small HTTPS client for calling a webhook server as the API server does, checking its CA. */
import { request } from 'node:https';
import { connect } from 'node:tls';

export interface Reply {
  status: number;
  // biome-ignore lint/suspicious/noExplicitAny: tests read whatever JSON the server answered
  body: any;
}

/** POSTs `body` (a string is sent as it is) and parses the JSON answer. */
export function post(
  port: number,
  path: string,
  body: unknown,
  options: { ca: string; contentType?: string; method?: string },
): Promise<Reply> {
  const payload = typeof body === 'string' ? body : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        path,
        method: options.method ?? 'POST',
        ca: options.ca,
        headers: { 'content-type': options.contentType ?? 'application/json' },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString();
          resolve({ status: res.statusCode ?? 0, body: text ? JSON.parse(text) : undefined });
        });
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

/** The SHA-256 fingerprint of the certificate the server presents now. */
export function servedFingerprint(port: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port, rejectUnauthorized: false }, () => {
      const fingerprint = socket.getPeerCertificate().fingerprint256;
      socket.end();
      resolve(fingerprint);
    });
    socket.on('error', reject);
  });
}

/** An AdmissionReview v1 request body. */
export function admissionBody(request: Record<string, unknown>): unknown {
  return {
    apiVersion: 'admission.k8s.io/v1',
    kind: 'AdmissionReview',
    request: { uid: 'uid-1', userInfo: {}, ...request },
  };
}
