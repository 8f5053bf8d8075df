/**
 * The bundling script shared with `npm run bundle` (`scripts/bundle-operators.mjs`, plain .mjs
 * without types), loaded once for every row that bundles or builds an image. The path is from
 * bench/dist.
 */
export interface Bundler {
  /** Bundles one compiled entry point into `outfile`; returns its path. */
  bundleEntry: (entry: string, outfile: string) => Promise<string>;
  /** Bundles an operator's `dist/main.js` into `dist/main.bundle.mjs`; returns its path. */
  bundleOperator: (name: string) => Promise<string>;
  /** The operators that ship as images: name to folder, from the repository root. */
  OPERATORS: Record<string, string>;
}

let loaded: Promise<Bundler> | undefined;

/** The bundling script's exports. */
export function loadBundler(): Promise<Bundler> {
  loaded ??= import(
    new URL('../../../../scripts/bundle-operators.mjs', import.meta.url).href
  ) as Promise<Bundler>;
  return loaded;
}
