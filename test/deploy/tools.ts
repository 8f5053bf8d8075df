/**
 * kustomize and helm for the manifest tests: built on first use from the Go module proxy into the
 * envtest cache (as `.ci/tools` builds them in CI), then run in the repository.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { parseAllDocuments } from 'yaml';
import { type ManifestObject, resolveTool, type ToolName } from '../../packages/envtest/src/index.js';
import { root } from '../packaging/packages.js';

const run = promisify(execFile);

/** A tool's binary, built first if this machine has none (progress on stderr). */
export const tool = (name: ToolName): Promise<string> => resolveTool(name);

/**
 * Both tools, built if missing: call in `beforeAll` with {@link TOOLS_BUILD_MS}, so that a cold
 * first build (minutes) falls under the hook's timeout rather than a test's.
 */
export const buildTools = async (): Promise<void> => {
  await Promise.all([tool('kustomize'), tool('helm')]);
};

/** How long a cold build of both may take on a loaded two-core machine. */
export const TOOLS_BUILD_MS = 1_200_000;

/** Parses the YAML documents a tool prints; empty ones are skipped. */
export function parseObjects(text: string): ManifestObject[] {
  return parseAllDocuments(text)
    .map((d) => d.toJS() as ManifestObject | null)
    .filter((o): o is ManifestObject => !!o);
}

/** Runs a tool in `cwd` (default: the repository) and answers what it printed; a failure carries its stderr. */
export async function runTool(
  name: ToolName,
  args: string[],
  options: { cwd?: string; env?: NodeJS.ProcessEnv } = {},
): Promise<string> {
  try {
    const { stdout } = await run(await tool(name), args, {
      cwd: options.cwd ?? root,
      env: { ...process.env, ...options.env },
      maxBuffer: 64 << 20,
    });
    return stdout;
  } catch (err) {
    // helm warns about every symbolic link of the chart (its files/ and crds/ link to deploy/).
    const stderr = ((err as { stderr?: string }).stderr ?? '')
      .split('\n')
      .filter((line) => !/found symbolic link in path/.test(line))
      .join('\n')
      .trim();
    throw new Error(`${name} ${args.join(' ')} failed: ${stderr || (err as Error).message}`);
  }
}

/** Runs a tool in the repository and reads the YAML it prints. */
export async function render(name: ToolName, args: string[]): Promise<ManifestObject[]> {
  return parseObjects(await runTool(name, args));
}
