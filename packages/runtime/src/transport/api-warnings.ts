/**
 * The API server's `Warning` headers (RFC 7234's shape, `299 - "text"`): deprecated APIs, unknown
 * fields dropped, a label that will not select. Worth telling a person once, not on every request
 * that repeats the cause.
 */

/** One warning in a header value: code, agent, quoted text with `\` escapes, an optional date. */
const WARNING = /(\d{3}) (\S+) "((?:[^"\\]|\\.)*)"(?: "[^"]*")?/g;

/**
 * The texts of the 299 ("miscellaneous persistent") warnings of a `Warning` header value, which
 * may join several with `, `. Other codes are not the API server's and are left out, as
 * client-go does.
 */
export function parseWarningHeader(value: string): string[] {
  const texts: string[] = [];
  for (const match of value.matchAll(WARNING)) {
    if (match[1] === '299') texts.push((match[3] as string).replace(/\\(.)/g, '$1'));
  }
  return texts;
}

/** How many distinct texts a {@link WarningOnce} remembers before it starts over. */
const REMEMBERED = 1024;

/**
 * Passes each distinct warning text on once. Its memory is bounded: after 1024 distinct texts it
 * forgets them all, so a text may then be told again, once.
 */
export class WarningOnce {
  private readonly seen = new Set<string>();

  constructor(private readonly tell: (text: string) => void) {}

  /** Reads a `Warning` header value (absent on nearly every answer) and tells what is new. */
  header(value: string | undefined): void {
    if (value === undefined) return;
    for (const text of parseWarningHeader(value)) {
      if (this.seen.has(text)) continue;
      if (this.seen.size >= REMEMBERED) this.seen.clear();
      this.seen.add(text);
      try {
        this.tell(text);
      } catch {
        // A failing hook must not fail the request that carried the warning.
      }
    }
  }
}
