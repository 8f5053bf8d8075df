/** Commands run as a user runs them at a terminal, for the tests that try a new project. */
import { execFileSync } from 'node:child_process';

/**
 * A terminal's environment: without what `npm test` and vitest hand their children (`npm_config_*`
 * would outrank the new project's .npmrc; `npm_config_loglevel=silent` under `npm run -s`).
 */
export const userEnv = Object.fromEntries(
  Object.entries(process.env).filter(([key]) => !/^(npm_|VITEST|INIT_CWD$)/i.test(key)),
);

/** Runs a command in `userEnv`, failing with its output; `timings` gets each run's time. */
export type UserCommand = (cwd: string, command: string, args: string[], label?: string) => string;

/** A {@link UserCommand} that notes each run's time in `timings`, labelled (default: the command and its first argument). */
export function userCommand(timings: string[]): UserCommand {
  return (cwd, command, args, label = `${command} ${args[0] ?? ''}`) => {
    const started = Date.now();
    try {
      return execFileSync(command, args, {
        cwd,
        encoding: 'utf8',
        stdio: 'pipe',
        maxBuffer: 64 * 1024 * 1024,
        env: { ...userEnv, NO_COLOR: '1', FORCE_COLOR: '0' },
      });
    } catch (err) {
      const e = err as { stdout?: string; stderr?: string };
      throw new Error(`"${command} ${args.join(' ')}" failed:\n${e.stdout ?? ''}${e.stderr ?? ''}`);
    } finally {
      timings.push(`${label}: ${((Date.now() - started) / 1000).toFixed(1)} s`);
    }
  };
}
