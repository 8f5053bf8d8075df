#!/usr/bin/env node
import { readFileSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { builtinModules, createRequire } from 'node:module';
/**
 * `npm run bundle`: one tree-shaken ESM file per operator, for its image: `node dist/main.bundle.mjs`
 * loads only the code its main reaches (client-node's generated API clients, the workspace's other
 * exports and the CLI helpers it never calls stay out), where `node dist/main.js` loads every
 * module the packages import. Run after `npm run build` (it bundles the compiled dist/main.js).
 *
 * Nothing is removed from the library: @capstan/runtime reads kubeconfig itself (certs, tokens,
 * token files, in-cluster) and imports client-node's KubeConfig lazily, for exec plugins, auth
 * providers and proxies. The bundle keeps that lazy import as a module initialised on first use:
 * its code is in the file (an image has no node_modules) but not run unless a kubeconfig needs it.
 */
import { dirname, join, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

/**
 * client-node for an image (reached only through the runtime's lazy import): its KubeConfig, every
 * auth flavour with it, and nothing else.
 * - The package index re-exports ~2,500 generated API and model modules (most of the ~70 MB its
 *   import costs); the runtime needs only `KubeConfig`, so the bare import resolves to config.js.
 *   Another named import would fail this build (esbuild: no matching export), never the image.
 * - config.js imports the generated client only for `makeApiClient`, which the runtime never calls
 *   (it has its own transport): that import becomes two functions that say so if ever called.
 * - config.js takes `Headers` from node-fetch (whose URL parser loads tr46's Unicode tables, ~3 MB
 *   of heap) for `applyToFetchOptions`: Node's own `Headers` has the same interface.
 */
const kubeConfigOnly = {
  name: 'client-node-kubeconfig-only',
  setup(b) {
    const configJs = join(root, 'node_modules', '@kubernetes', 'client-node', 'dist', 'config.js');
    b.onResolve({ filter: /^@kubernetes\/client-node$/ }, () => ({
      path: 'kubeconfig',
      namespace: 'client-node',
    }));
    b.onResolve({ filter: /^\.\/gen\/index\.js$/ }, (args) =>
      args.importer === configJs ? { path: 'generated-client', namespace: 'client-node' } : undefined,
    );
    b.onResolve({ filter: /^node-fetch$/ }, (args) =>
      args.importer === configJs ? { path: 'fetch-headers', namespace: 'client-node' } : undefined,
    );
    b.onLoad({ filter: /^fetch-headers$/, namespace: 'client-node' }, () => ({
      contents: 'export const Headers = globalThis.Headers;',
    }));
    b.onLoad({ filter: /^kubeconfig$/, namespace: 'client-node' }, () => ({
      contents: `export { KubeConfig } from ${JSON.stringify(configJs)};`,
      resolveDir: root,
    }));
    b.onLoad({ filter: /^generated-client$/, namespace: 'client-node' }, () => ({
      contents: [
        "const missing = () => { throw new Error('KubeConfig.makeApiClient is not in this bundle: client-node\\'s generated API clients were left out'); };",
        'export const createConfiguration = missing;',
        'export class ServerConfiguration { constructor() { missing(); } }',
      ].join('\n'),
    }));
  },
};

/**
 * The workspace requires a few CommonJS dependencies through `createRequire`: the runtime's
 * metrics/prom-classes.ts and default-metrics.ts (cheaper than importing them one by one from
 * ESM), the coordinator's gates/cel-condition.ts (CEL loaded on first use). esbuild does not
 * follow such a `require`; without the binding it sees a plain `require` and inlines the module,
 * initialised on its first call.
 */
const REQUIRE_BINDING = 'const require = createRequire(import.meta.url);';
const workspaceFolders = ['packages', 'examples'].map((f) => join(root, f) + sep);
const inWorkspaceDist = (path) =>
  workspaceFolders.some((f) => path.startsWith(f)) && path.includes(`${sep}dist${sep}`);
const inlineRequires = {
  name: 'workspace-inline-requires',
  setup(b) {
    b.onLoad({ filter: /\.js$/ }, async (args) => {
      if (!inWorkspaceDist(args.path)) return undefined;
      const text = await readFile(args.path, 'utf8');
      if (!text.includes(REQUIRE_BINDING)) return undefined;
      return { contents: text.replace(REQUIRE_BINDING, ''), loader: 'js', resolveDir: dirname(args.path) };
    });
  },
};

/**
 * Node's built-ins, statically imported by the bundle's ES modules, are required instead. Node
 * makes a built-in's ES module from its exports by reading every one of them, getters included:
 * `crypto`'s load Web Crypto, `net`'s its BlockList and SocketAddress, `fs`'s its streams, and
 * `tls.rootCertificates` copies Node's ~140 root certificates into the heap (none of which the
 * operators use). `require` reads none of them. Each built-in becomes a module of its named
 * exports, each read from the required one only when some import uses it (pure, so tree-shaken
 * otherwise), and loaded where it is imported: a built-in imported only by a module initialised
 * on first use (client-node's KubeConfig) is loaded then.
 */
const nodeRequire = createRequire(import.meta.url);
const BUILTINS = new Set(builtinModules);
const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;
const builtinsRequired = {
  name: 'node-builtins-required',
  setup(b) {
    b.onResolve({ filter: /^[a-z_:/]+$/ }, (args) => {
      const name = args.path.replace(/^node:/, '');
      if (args.kind !== 'import-statement' || !BUILTINS.has(name)) return undefined;
      return { path: `node:${name}`, namespace: 'node-builtin' };
    });
    b.onLoad({ filter: /.*/, namespace: 'node-builtin' }, (args) => {
      const names = Object.keys(nodeRequire(args.path)).filter((n) => IDENTIFIER.test(n) && n !== 'default');
      const lines = [`const m = require(${JSON.stringify(args.path)});`, 'export default m;'];
      for (const n of names) lines.push(`export const ${n} = /* @__PURE__ */ (() => m.${n})();`);
      return { contents: lines.join('\n'), loader: 'js' };
    });
  },
};

/**
 * dbus-next requires xml2js (with xmlbuilder and sax) when its bus is created, for an Introspect
 * reply (only for objects a process exports) and for proxy objects' introspection (only for
 * `getProxyObject`): the agent uses neither. Its two modules get an xml2js loaded on first use.
 */
const DBUS_XML_USERS = /[\\/]dbus-next[\\/]lib[\\/](bus|client[\\/]proxy-object)\.js$/;
const dbusXmlOnUse = {
  name: 'dbus-next-xml2js-on-use',
  setup(b) {
    b.onLoad({ filter: DBUS_XML_USERS }, async (args) => {
      const text = await readFile(args.path, 'utf8');
      const required = "require('xml2js')";
      if (!text.includes(required)) throw new Error(`${args.path}: no ${required} to defer`);
      return {
        contents: text.replace(required, "require('xml2js-on-use')"),
        loader: 'js',
        resolveDir: dirname(args.path),
      };
    });
    b.onResolve({ filter: /^xml2js-on-use$/ }, (args) => ({
      path: 'xml2js-on-use',
      namespace: 'dbus-next',
      pluginData: args.resolveDir,
    }));
    b.onLoad({ filter: /.*/, namespace: 'dbus-next' }, (args) => ({
      contents: [
        'let xml2js;',
        "const load = () => (xml2js ??= require('xml2js'));",
        'exports.Builder = class Builder {',
        '  constructor(options) { this.options = options; }',
        '  buildObject(object) { this.builder ??= new (load().Builder)(this.options); return this.builder.buildObject(object); }',
        '};',
        'exports.Parser = function Parser(options) { return new (load().Parser)(options); };',
      ].join('\n'),
      loader: 'js',
      resolveDir: args.pluginData,
    }));
  },
};

/**
 * The operators that ship as images (each has a Dockerfile beside its package.json), by name: the
 * folder, from the repository root, whose `dist/main.js` is bundled.
 */
export const OPERATORS = {
  agent: 'packages/agent',
  coordinator: 'packages/coordinator',
  'version-operator': 'packages/version-operator',
  capvcd: 'packages/capvcd',
  greeting: 'examples/greeting',
};

/** Bundles operator `name`'s `dist/main.js` into `dist/main.bundle.mjs` beside it; returns its path. */
export function bundleOperator(name) {
  const folder = OPERATORS[name];
  if (!folder) throw new Error(`no operator named ${name}: one of ${Object.keys(OPERATORS).join(', ')}`);
  const dist = join(root, folder, 'dist');
  return bundleEntry(join(dist, 'main.js'), join(dist, 'main.bundle.mjs'));
}

/** Bundles one compiled entry point (an operator's main, or a bench probe) into `outfile`. */
export async function bundleEntry(entry, outfile) {
  const result = await build({
    entryPoints: [entry],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    // Source conditions would pull the .ts sources; the bundle is made of what tsc built, and of
    // the runtime's per-file modules (`@capstan/modules`), not of its own bundle: tree-shaking and
    // the createRequire inlining below read those.
    conditions: ['@capstan/modules', 'import', 'node'],
    // dbus-next's optional native helpers (abstract sockets, X11 session bus discovery): unused.
    external: ['usocket', 'x11'],
    // CommonJS dependencies call require(); give the ESM bundle one.
    banner: {
      js: "import { createRequire as __capstanRequire } from 'node:module';\nconst require = __capstanRequire(import.meta.url);",
    },
    plugins: [builtinsRequired, kubeConfigOnly, inlineRequires, dbusXmlOnUse],
    legalComments: 'none',
    // Short local names: V8 holds the whole source as a string, and its scopes' names too (the
    // agent's bundle 1.16 -> 0.88 MB, ~0.6 MB less idle RSS). Properties and methods keep theirs;
    // `node --enable-source-maps` maps a stack back to src/ through the map beside the bundle.
    minifyWhitespace: true,
    minifySyntax: true,
    minifyIdentifiers: true,
    sourcemap: 'linked',
    sourcesContent: false,
    logLevel: 'warning',
    metafile: Boolean(process.env.BUNDLE_METAFILE),
  });
  if (result.metafile) writeFileSync(`${outfile}.meta.json`, JSON.stringify(result.metafile));
  asciiOnly(outfile);
  return outfile;
}

/**
 * V8 holds a module's whole source as a string for as long as it runs: one non-ASCII character
 * (esbuild escapes those in strings, not in regular expressions) makes it two bytes a character,
 * ~1.4 MB more RSS for the coordinator's bundle. Fails the bundle and says where.
 */
function asciiOnly(outfile) {
  const bytes = readFileSync(outfile);
  const at = bytes.findIndex((b) => b > 0x7f);
  if (at < 0) return;
  const around = bytes.subarray(Math.max(0, at - 60), at + 20).toString('utf8');
  throw new Error(
    `${outfile}: a non-ASCII character at byte ${at}, in: ${around}\nescape it in the source (\\uXXXX)`,
  );
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  for (const name of Object.keys(OPERATORS)) process.stdout.write(`${await bundleOperator(name)}\n`);
}
