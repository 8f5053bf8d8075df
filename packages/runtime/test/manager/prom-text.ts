/** Reads one sample out of Prometheus text exposition output, matching labels in any order. */
export function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  for (const line of text.split('\n')) {
    if (line.startsWith('#') || line.trim() === '') continue;
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m || m[1] !== name) continue;
    const found: Record<string, string> = {};
    for (const pair of (m[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) {
      found[pair[1] as string] = pair[2] as string;
    }
    const wanted = Object.entries(labels);
    if (wanted.length !== Object.keys(found).length) continue;
    if (wanted.every(([k, v]) => found[k] === v)) return Number(m[3]);
  }
  return undefined;
}
