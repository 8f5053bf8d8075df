/**
 * A project created from a registry on this machine (a clone's `npm run registry`, before the
 * packages are public) must install from that same registry: npmjs.org would answer 404 for
 * `@capstan/*`. npm hands `npm create --registry <url>` to the initializer as `npm_config_registry`
 * (set only when it is not npm's default).
 */

/** Loopback host names: the registry runs on this machine. */
function isLoopback(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, '').toLowerCase();
  return host === 'localhost' || host === '::1' || /^127(\.\d{1,3}){3}$/.test(host);
}

/**
 * The registry a new project pins in its `.npmrc`: `registry` when it is an http(s) URL on a
 * loopback address (with a trailing slash), otherwise none. A registry elsewhere (a company
 * mirror) comes from the user's own npm configuration and stays out of the project.
 */
export function trialRegistry(registry: string | undefined): string | undefined {
  if (!registry) return undefined;
  let url: URL;
  try {
    url = new URL(registry);
  } catch {
    return undefined;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined;
  if (!isLoopback(url.hostname)) return undefined;
  return url.href.endsWith('/') ? url.href : `${url.href}/`;
}

/** The `.npmrc` that points the project at a trial registry, saying why and when to drop it. */
export function trialNpmrc(registry: string): string {
  return (
    '# Written by create-capstan: this project was created from a registry on this machine\n' +
    '# (npm run registry in a Capstan clone). Delete this file once @capstan/* is on npmjs.org.\n' +
    `registry=${registry}\n`
  );
}
