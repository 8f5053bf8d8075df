/**
 * Cuts `object.metadata.managedFields` out of a watch line's JSON text before it is parsed, for
 * receivers that drop it anyway (the cache does): the field is often a third of an object, and
 * parsing it only to throw it away was most of the garbage of a cache sync. The scan reads only
 * what precedes the field (the event's type, the object's kind and the metadata before it, found
 * with native `indexOf` inside strings) and stops as soon as the metadata object is known.
 * Anything it does not understand leaves the line as it is, so the parse sees the original text.
 */

const QUOTE = 34;
const BACKSLASH = 92;
const COLON = 58;
const COMMA = 44;
const OPEN_BRACE = 123;
const CLOSE_BRACE = 125;
const OPEN_BRACKET = 91;
const CLOSE_BRACKET = 93;

const isSpace = (c: number) => c === 32 || c === 9 || c === 10 || c === 13;

function skipSpace(s: string, i: number): number {
  while (i < s.length && isSpace(s.charCodeAt(i))) i++;
  return i;
}

/** From an opening quote to just after its closing quote; -1 when the string never ends. */
function skipString(s: string, i: number): number {
  let from = i + 1;
  for (;;) {
    const q = s.indexOf('"', from);
    if (q === -1) return -1;
    let backslashes = 0;
    for (let b = q - 1; s.charCodeAt(b) === BACKSLASH; b--) backslashes++;
    if (backslashes % 2 === 0) return q + 1;
    from = q + 1;
  }
}

/** From a value's first character to just after it; -1 when it does not end. */
function skipValue(s: string, i: number): number {
  const c = s.charCodeAt(i);
  if (c === QUOTE) return skipString(s, i);
  if (c === OPEN_BRACE || c === OPEN_BRACKET) {
    // One loop, strings included: inside an object the strings are short keys and values (a
    // managedFields entry is dozens of them), for which a native indexOf per string costs more.
    let depth = 0;
    let inString = false;
    for (let j = i; j < s.length; j++) {
      const d = s.charCodeAt(j);
      if (inString) {
        if (d === BACKSLASH) j++;
        else if (d === QUOTE) inString = false;
      } else if (d === QUOTE) inString = true;
      else if (d === OPEN_BRACE || d === OPEN_BRACKET) depth++;
      else if (d === CLOSE_BRACE || d === CLOSE_BRACKET) {
        depth--;
        if (depth === 0) return j + 1;
      }
    }
    return -1;
  }
  // A number, true, false or null: up to the next delimiter.
  let j = i;
  while (j < s.length) {
    const d = s.charCodeAt(j);
    if (d === COMMA || d === CLOSE_BRACE || d === CLOSE_BRACKET || isSpace(d)) break;
    j++;
  }
  return j > i ? j : -1;
}

/** Where one member of an object sits in the text. */
interface Member {
  valueStart: number;
}

/** The member `key` of the object opening at `open`, or undefined when it has none (or on doubt). */
function findMember(s: string, open: number, key: string): Member | undefined {
  if (s.charCodeAt(open) !== OPEN_BRACE) return undefined;
  let i = skipSpace(s, open + 1);
  while (s.charCodeAt(i) === QUOTE) {
    // A key with escapes never matches: those are compared as raw text.
    const matches = s.startsWith(key, i + 1) && s.charCodeAt(i + 1 + key.length) === QUOTE;
    i = skipString(s, i);
    if (i === -1) return undefined;
    i = skipSpace(s, i);
    if (s.charCodeAt(i) !== COLON) return undefined;
    const valueStart = skipSpace(s, i + 1);
    // Found: its value is not scanned here (for `object` that would be the whole object).
    if (matches) return { valueStart };
    const valueEnd = skipValue(s, valueStart);
    if (valueEnd === -1) return undefined;
    i = skipSpace(s, valueEnd);
    if (s.charCodeAt(i) !== COMMA) return undefined;
    i = skipSpace(s, i + 1);
  }
  return undefined;
}

const FIELD = '"managedFields":';

/**
 * Where the key of member `managedFields` of the object opening at `open` starts, or -1. Jumps to
 * each occurrence of the key's text with indexOf and checks, with one pass over the text before
 * it, that it is a key of this object itself (not of a label map or a nested object inside it).
 */
function findField(s: string, open: number): number {
  let depth = 0;
  let inString = false;
  let scanned = open;
  for (let at = s.indexOf(FIELD, open); at !== -1; at = s.indexOf(FIELD, at + 1)) {
    for (; scanned < at; scanned++) {
      const d = s.charCodeAt(scanned);
      if (inString) {
        if (d === BACKSLASH) scanned++;
        else if (d === QUOTE) inString = false;
      } else if (d === QUOTE) inString = true;
      else if (d === OPEN_BRACE || d === OPEN_BRACKET) depth++;
      else if (d === CLOSE_BRACE || d === CLOSE_BRACKET) {
        depth--;
        if (depth === 0) return -1; // the object ended before it
      }
    }
    if (!inString && depth === 1) return at;
  }
  return -1;
}

/**
 * The watch line `line` (one `{"type": ..., "object": {...}}` event) without the object's
 * `metadata.managedFields`; the line itself when it has none or is not understood.
 */
export function omitManagedFields(line: string): string {
  const object = findMember(line, skipSpace(line, 0), 'object');
  if (!object) return line;
  const metadata = findMember(line, object.valueStart, 'metadata');
  if (!metadata) return line;
  const keyStart = findField(line, metadata.valueStart);
  if (keyStart === -1) return line;
  const valueEnd = skipValue(line, skipSpace(line, keyStart + FIELD.length));
  if (valueEnd === -1) return line;
  let before = keyStart - 1;
  while (isSpace(line.charCodeAt(before))) before--;
  // After another member: cut from the comma that precedes it.
  if (line.charCodeAt(before) === COMMA) return line.slice(0, before) + line.slice(valueEnd);
  // The first member: cut up to the next one (with its comma), or to the closing brace.
  let after = skipSpace(line, valueEnd);
  if (line.charCodeAt(after) === COMMA) after = skipSpace(line, after + 1);
  else after = valueEnd;
  return line.slice(0, keyStart) + line.slice(after);
}
