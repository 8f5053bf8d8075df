/**
 * Minimal DER reader: just enough to take a certificate made elsewhere apart (its subject and
 * Subject Key Identifier), so a CA read from PEM issues certificates that name it exactly.
 */

/** One tag-length-value element: its tag, its whole encoding and its content. */
export interface DerElement {
  tag: number;
  /** The whole element, tag and length included. */
  raw: Buffer;
  content: Buffer;
}

/** Reads the element that starts at `offset`. */
export function readElement(buf: Buffer, offset = 0): DerElement {
  const tag = buf[offset];
  const first = buf[offset + 1];
  if (tag === undefined || first === undefined) throw new Error('DER: truncated element');
  let length = first;
  let head = 2;
  if (first & 0x80) {
    const bytes = first & 0x7f;
    if (bytes === 0 || bytes > 4) throw new Error(`DER: unsupported length of ${bytes} bytes`);
    length = 0;
    for (let i = 0; i < bytes; i++) length = length * 256 + (buf[offset + 2 + i] ?? 0);
    head += bytes;
  }
  const end = offset + head + length;
  if (end > buf.length) throw new Error('DER: element runs past its buffer');
  return { tag, raw: buf.subarray(offset, end), content: buf.subarray(offset + head, end) };
}

/** The elements a constructed element's content holds, in order. */
export function children(content: Buffer): DerElement[] {
  const out: DerElement[] = [];
  for (let offset = 0; offset < content.length; ) {
    const element = readElement(content, offset);
    out.push(element);
    offset += element.raw.length;
  }
  return out;
}

const SUBJECT_KEY_ID = Buffer.from([0x06, 0x03, 0x55, 0x1d, 0x0e]); // OID 2.5.29.14

/** The fields of a certificate's to-be-signed part, version [0] included when present. */
function tbsFields(der: Buffer): DerElement[] {
  const [tbs] = children(readElement(der).content);
  if (!tbs) throw new Error('DER: a certificate without its to-be-signed part');
  return children(tbs.content);
}

/**
 * The value (the extnValue OCTET STRING's content) of a certificate's extension, by its OID as
 * encoded (`06 03 55 1d 23` for 2.5.29.35); undefined when the certificate has none.
 */
export function extensionValue(der: Buffer, oidDer: Buffer): Buffer | undefined {
  const extensions = tbsFields(der).find((f) => f.tag === 0xa3);
  for (const ext of extensions ? children(readElement(extensions.content).content) : []) {
    const parts = children(ext.content);
    if (!parts[0]?.raw.equals(oidDer)) continue;
    // extnID, critical (optional), extnValue: the value is last.
    const value = parts[parts.length - 1];
    if (value) return value.content;
  }
  return undefined;
}

/** A certificate's subject (as encoded) and its Subject Key Identifier, if it has one. */
export function certificateNames(der: Buffer): { subject: Buffer; subjectKeyId?: Buffer } {
  const fields = tbsFields(der);
  // version [0] is optional: serial, signature, issuer, validity, subject follow it.
  const start = fields[0]?.tag === 0xa0 ? 1 : 0;
  const subject = fields[start + 4];
  if (!subject) throw new Error('DER: a certificate without a subject');
  const keyId = extensionValue(der, SUBJECT_KEY_ID);
  // SubjectKeyIdentifier ::= KeyIdentifier, an OCTET STRING.
  return keyId
    ? { subject: subject.raw, subjectKeyId: readElement(keyId).content }
    : { subject: subject.raw };
}
