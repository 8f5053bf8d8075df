/** Kubernetes quantities (`20Gi`, `500M`, `1073741824`) as bytes; undefined when unreadable. */
const FACTORS: Record<string, number> = {
  '': 1,
  k: 1e3,
  M: 1e6,
  G: 1e9,
  T: 1e12,
  P: 1e15,
  Ki: 2 ** 10,
  Mi: 2 ** 20,
  Gi: 2 ** 30,
  Ti: 2 ** 40,
  Pi: 2 ** 50,
};

export function parseQuantity(value: string | number): number | undefined {
  if (typeof value === 'number') return Number.isFinite(value) && value >= 0 ? value : undefined;
  const match = /^([0-9]+(?:\.[0-9]+)?)(Ki|Mi|Gi|Ti|Pi|k|M|G|T|P)?$/.exec(value.trim());
  if (!match) return undefined;
  return Math.round(Number(match[1]) * (FACTORS[match[2] ?? ''] ?? 1));
}
