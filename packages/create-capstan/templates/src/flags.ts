/**
 * The program's command line: the standard flags (--kubeconfig, --namespace, --leader-elect,
 * --metrics-bind-address, --health-probe-bind-address, --log-level, --version, ...). Add your own
 * with `extend`, and turn them into the operator's options in `options`, where a test can call it.
 */
import {
  type CommandLine,
  type ParseOptionsConfig,
  packageVersion,
  parseCommandLine,
} from '@capstan/runtime';

/** The operator's own options (none yet): what `addWidget` would take. */
export type WidgetOptions = Record<string, never>;

/** Parses the arguments (without node and the script); `--help` and usage errors go through `exit`. */
export function parseWidgetArgs(
  argv: readonly string[],
  io: Pick<ParseOptionsConfig, 'exit' | 'output'> = {},
): CommandLine<WidgetOptions> {
  return parseCommandLine<Record<string, never>, WidgetOptions>(argv, {
    name: '__NAME__',
    description: 'Reconciles Widgets into ConfigMaps.',
    version: packageVersion(import.meta.url),
    defaults: { leaderElectionId: '__NAME__' },
    options: () => ({}),
    ...io,
  });
}
