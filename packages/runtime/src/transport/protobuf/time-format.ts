/** How Kubernetes' JSON writes times and durations, for values decoded from protobuf. */
import { isoSeconds, isoTimestamp } from '../../iso-time.js';

// Objects of one list mostly share a handful of timestamps (made in the same seconds), and a
// Date's formatting costs more than the rest of a small object's decode: the last few are kept.
const MAX_REMEMBERED = 64;
const remembered = new Map<number, string>();

/** metav1.Time: RFC 3339 in UTC, whole seconds (`2026-12-01T23:06:00Z`). */
export function formatTime(seconds: number): string {
  let text = remembered.get(seconds);
  if (text !== undefined) return text;
  text = isoSeconds(seconds * 1000);
  if (remembered.size >= MAX_REMEMBERED) remembered.clear();
  remembered.set(seconds, text);
  return text;
}

/** metav1.MicroTime: RFC 3339 in UTC with six fractional digits. */
export function formatMicroTime(seconds: number, nanos: number): string {
  const iso = isoTimestamp(seconds * 1000);
  const micros = String(Math.floor(nanos / 1000)).padStart(6, '0');
  return `${iso.slice(0, 19)}.${micros}Z`;
}

const MICROSECOND = 1e3;
const MILLISECOND = 1e6;
const SECOND = 1e9;

/** A fraction `value / 10^digits` as `.ddd` without trailing zeros; `''` when it is zero. */
function fraction(value: number, digits: number): string {
  if (value === 0) return '';
  return `.${String(value).padStart(digits, '0').replace(/0+$/, '')}`;
}

/**
 * metav1.Duration: Go's `time.Duration.String()` of `nanoseconds`: `1h0m0s`, `1.5s`, `300ms`,
 * `2µs`, `0s`.
 */
export function formatDuration(nanoseconds: number): string {
  const negative = nanoseconds < 0;
  let u = Math.abs(nanoseconds);
  let text: string;
  if (u === 0) return '0s';
  if (u < SECOND) {
    const [unit, scale, digits] =
      u < MICROSECOND ? ['ns', 1, 0] : u < MILLISECOND ? ['µs', MICROSECOND, 3] : ['ms', MILLISECOND, 6];
    text = `${Math.floor(u / scale)}${fraction(u % scale, digits as number)}${unit}`;
  } else {
    const frac = fraction(u % SECOND, 9);
    u = Math.floor(u / SECOND);
    text = `${u % 60}${frac}s`;
    u = Math.floor(u / 60);
    if (u > 0) {
      text = `${u % 60}m${text}`;
      u = Math.floor(u / 60);
      if (u > 0) text = `${u}h${text}`;
    }
  }
  return negative ? `-${text}` : text;
}
