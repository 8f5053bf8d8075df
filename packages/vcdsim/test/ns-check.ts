/** A namespace-aware XML parser's verdict on a document (saxes, as strict as Python's or Java's). */
import { SaxesParser } from 'saxes';

/** The namespace and well-formedness errors a namespace-aware parser reports (empty when clean). */
export function namespaceErrors(xml: string): string[] {
  const errors: string[] = [];
  const parser = new SaxesParser({ xmlns: true });
  parser.on('error', (e) => errors.push(e.message));
  parser.write(xml).close();
  return errors;
}
