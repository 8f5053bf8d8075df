import { readFile } from 'node:fs/promises';

/** The fields of os-release(5) the agent uses, plus every field as read. */
export interface OsRelease {
  /** `ID`, e.g. "flatcar"; "linux" when absent, as os-release(5) specifies. */
  id: string;
  /** `VERSION_ID`, e.g. "3975.2.0"; undefined when absent (rolling releases). */
  versionId: string | undefined;
  /** `NAME`; "Linux" when absent. */
  name: string;
  /** `PRETTY_NAME`, if present. */
  prettyName: string | undefined;
  /** `VERSION`, if present. */
  version: string | undefined;
  /** `ID_LIKE` split on spaces. */
  idLike: string[];
  /** Every `KEY=value` assignment, values unquoted. */
  fields: Readonly<Record<string, string>>;
}

/** Thrown when os-release cannot be read or has a malformed value. */
export class OsReleaseError extends Error {
  override readonly name = 'OsReleaseError';
}

/** Where os-release(5) says to look, in order, when no path is given. */
export const OS_RELEASE_PATHS = ['/etc/os-release', '/usr/lib/os-release'] as const;

/**
 * Reads and parses os-release. With an explicit `path` only that file is read; otherwise
 * `/etc/os-release` then `/usr/lib/os-release`. Throws {@link OsReleaseError} naming the path(s)
 * when nothing can be read.
 */
export async function readOsRelease(path?: string): Promise<OsRelease> {
  const candidates = path === undefined ? OS_RELEASE_PATHS : [path];
  const failures: string[] = [];
  for (const candidate of candidates) {
    let text: string;
    try {
      text = await readFile(candidate, 'utf8');
    } catch (err) {
      failures.push(`${candidate}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
      continue;
    }
    try {
      return parseOsRelease(text);
    } catch (err) {
      throw new OsReleaseError(`${candidate}: ${(err as Error).message}`);
    }
  }
  throw new OsReleaseError(`cannot read os-release (${failures.join('; ')})`);
}

/**
 * Parses os-release text: `KEY=value` lines, `#` comments and blank lines ignored, values
 * unquoted with shell rules (double quotes with `\` escapes of `$ " \ \``, single quotes
 * literal, unquoted with `\` escapes; adjacent pieces concatenate). Lines that are no
 * assignment are skipped, as systemd does; an unterminated quote throws {@link OsReleaseError}.
 */
export function parseOsRelease(text: string): OsRelease {
  const fields: Record<string, string> = {};
  const lines = text.split(/\r?\n/);
  lines.forEach((raw, index) => {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) return;
    const match = /^([A-Za-z_][A-Za-z0-9_]*)=(.*)$/.exec(line);
    if (!match) return;
    const [, key, value] = match as unknown as [string, string, string];
    try {
      fields[key] = unquote(value);
    } catch (err) {
      throw new OsReleaseError(`line ${index + 1} (${key}): ${(err as Error).message}`);
    }
  });
  return {
    id: fields.ID ?? 'linux',
    versionId: fields.VERSION_ID,
    name: fields.NAME ?? 'Linux',
    prettyName: fields.PRETTY_NAME,
    version: fields.VERSION,
    idLike: (fields.ID_LIKE ?? '').split(/\s+/).filter(Boolean),
    fields,
  };
}

const DOUBLE_QUOTE_ESCAPABLE = new Set(['$', '"', '\\', '`']);

function unquote(value: string): string {
  let out = '';
  // Unquoted whitespace is held back so that whitespace before a comment or the end is dropped.
  let heldSpace = '';
  const append = (text: string) => {
    out += heldSpace + text;
    heldSpace = '';
  };
  let i = 0;
  while (i < value.length) {
    const c = value[i]!;
    if (c === '"') {
      const end = scanDoubleQuoted(value, i + 1);
      append(end.text);
      i = end.next;
    } else if (c === "'") {
      const close = value.indexOf("'", i + 1);
      if (close < 0) throw new OsReleaseError('unterminated single quote');
      append(value.slice(i + 1, close));
      i = close + 1;
    } else if (c === '\\') {
      // Unquoted backslash escapes the next character; a trailing one is kept.
      append(value[i + 1] ?? '\\');
      i += 2;
    } else if (/\s/.test(c)) {
      heldSpace += c;
      i += 1;
    } else if (c === '#' && heldSpace !== '') {
      break; // a comment after the value
    } else {
      append(c);
      i += 1;
    }
  }
  return out;
}

function scanDoubleQuoted(value: string, start: number): { text: string; next: number } {
  let text = '';
  let i = start;
  while (i < value.length) {
    const c = value[i]!;
    if (c === '"') return { text, next: i + 1 };
    if (c === '\\' && i + 1 < value.length && DOUBLE_QUOTE_ESCAPABLE.has(value[i + 1]!)) {
      text += value[i + 1];
      i += 2;
    } else {
      text += c;
      i += 1;
    }
  }
  throw new OsReleaseError('unterminated double quote');
}
