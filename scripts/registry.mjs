#!/usr/bin/env node
/**
 * `npm run registry`: an npm registry on loopback (Verdaccio, scripts/registry.yaml) serving every
 * public workspace package of this clone, built and published as they would be to npmjs.org, and
 * everything else from npm's own registry. Until the packages are public, this is how to try them
 * as a user would: `npm create capstan@latest my-operator --registry <printed URL>`.
 *
 *   node scripts/registry.mjs [--port 4873]
 *
 * `--port 0` takes a free port. The storage is a new temporary folder, removed on exit: each run
 * publishes this clone's packages afresh (a registry refuses a version published before). Prints
 * `registry: <url>` once listening and `ready: <url>` once every package is published (the test
 * waits for that line); stops on Ctrl-C or SIGTERM.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';

const root = new URL('..', import.meta.url).pathname;
const require = createRequire(import.meta.url);
const { runServer, parseConfigFile } = require('verdaccio');

/** Runs a command to its end, resolving with its stdout; rejects with its output on failure. */
function run(command, args, options = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: root, stdio: ['ignore', 'pipe', 'pipe'], ...options });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    child.on('error', reject);
    child.on('close', (code) =>
      code === 0
        ? resolve(out)
        : reject(new Error(`${command} ${args.join(' ')} exited ${code}:\n${out}${err}`)),
    );
  });
}

/** The workspace folders that are published: every one whose package.json is not private. */
function publicWorkspaces() {
  const { workspaces } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  const folders = workspaces.flatMap((w) =>
    w.endsWith('/*')
      ? readdirSync(join(root, w.slice(0, -2))).map((name) => `${w.slice(0, -2)}/${name}`)
      : [w],
  );
  return folders.filter((dir) => {
    const manifest = join(root, dir, 'package.json');
    return existsSync(manifest) && !JSON.parse(readFileSync(manifest, 'utf8')).private;
  });
}

/** npm's registry and proxies, as `npm config get` reports them ("null" when unset). */
async function npmUpstream() {
  const out = await run('npm', ['config', 'get', 'registry', 'https-proxy', 'proxy']);
  const values = Object.fromEntries(
    out
      .trim()
      .split('\n')
      .map((line) => line.split(/=(.*)/s).slice(0, 2)),
  );
  const set = (v) => (v && v !== 'null' && v !== 'undefined' ? v : undefined);
  return { url: values.registry, https_proxy: set(values['https-proxy']), http_proxy: set(values.proxy) };
}

/** Verdaccio's configuration: the repository's file, with this run's storage and npm's upstream. */
function configuration(storage, upstream) {
  const config = parseConfigFile(join(root, 'scripts/registry.yaml'));
  config.self_path = join(storage, 'config.yaml');
  config.storage = join(storage, 'packages');
  config.auth.htpasswd.file = join(storage, 'htpasswd');
  config.uplinks.npmjs = { ...config.uplinks.npmjs, ...JSON.parse(JSON.stringify(upstream)) };
  return config;
}

/** Registers the publishing user (what `npm adduser` does) and returns its token. */
async function publisherToken(url) {
  const user = { name: 'capstan', password: `clone-${process.pid}-${Date.now()}` };
  const response = await fetch(new URL(`-/user/org.couchdb.user:${user.name}`, url), {
    method: 'PUT',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ _id: `org.couchdb.user:${user.name}`, type: 'user', roles: [], ...user }),
  });
  const body = await response.json();
  if (!response.ok || !body.token)
    throw new Error(`registering a publisher: ${response.status} ${JSON.stringify(body)}`);
  return body.token;
}

/** `npm publish`es every public workspace package to the registry at `url`. */
async function publishAll(url, folders) {
  const token = await publisherToken(url);
  const auth = `--${url.replace(/^https?:/, '')}:_authToken=${token}`;
  await run('npm', [
    'publish',
    '--registry',
    url,
    auth,
    '--ignore-scripts',
    ...folders.flatMap((d) => ['-w', d]),
  ]);
}

const { values } = parseArgs({
  options: { port: { type: 'string', default: '4873' } },
});
const storage = mkdtempSync(join(tmpdir(), 'capstan-registry-'));
const upstream = await npmUpstream();
const server = await runServer(configuration(storage, upstream));
let stopping = false;
const stop = (code) => {
  if (stopping) return;
  stopping = true;
  server.close();
  server.closeAllConnections?.();
  rmSync(storage, { recursive: true, force: true });
  process.exit(code);
};
process.on('SIGINT', () => stop(0));
process.on('SIGTERM', () => stop(0));
// Its parent gone (a test runner killed outright): nobody is left to stop it, so it stops itself.
const parent = process.ppid;
setInterval(() => process.ppid !== parent && stop(0), 2000).unref();

await new Promise((resolve) => {
  server.once('error', (err) => {
    const taken =
      err.code === 'EADDRINUSE' ? ': in use; choose another with --port N (0: any free port)' : '';
    process.stderr.write(`registry: cannot listen on 127.0.0.1:${values.port}${taken} (${err.message})\n`);
    stop(1);
  });
  server.listen(Number(values.port), '127.0.0.1', resolve);
});
const url = `http://127.0.0.1:${server.address().port}/`;
process.stdout.write(`registry: ${url}\n`);
try {
  const folders = publicWorkspaces();
  const started = Date.now();
  await publishAll(url, folders);
  const names = folders.map((dir) => JSON.parse(readFileSync(join(root, dir, 'package.json'), 'utf8')).name);
  process.stdout.write(
    `published ${names.length} packages in ${((Date.now() - started) / 1000).toFixed(1)} s: ${names.join(', ')}\n` +
      `other packages come from ${upstream.url}\n\n` +
      `Try them as a user would, from any folder:\n` +
      `  npm create capstan@latest my-operator --registry ${url}\n` +
      `  cd my-operator && npm install && npm test\n` +
      `(npm caches what npm create ran by version: after changing create-capstan, add --cache "$(mktemp -d)")\n\n` +
      `ready: ${url} (Ctrl-C stops it and removes its storage)\n`,
  );
} catch (err) {
  process.stderr.write(`registry: ${err instanceof Error ? err.message : String(err)}\n`);
  stop(1);
}
