/**
 * An operator's whole command line in one call: the standard flags and its own, and its own turned
 * into its options, so `main.ts` stays a few lines and a test can parse what a manifest passes.
 */
import { type ParseOptionsConfig, parseStandardOptions, type StandardOptions } from './options.js';

/** A command line parsed: the standard options, and the operator's own as its options. */
export interface CommandLine<Options> {
  standard: StandardOptions;
  options: Options;
}

/** {@link parseCommandLine}'s configuration: the command's, and how its flags become options. */
export interface CommandLineConfig<Flags, Options> extends ParseOptionsConfig {
  /**
   * The operator's options from its parsed flags (and the standard options, e.g. a namespace).
   * Throws an Error naming the flag when a value is unusable.
   */
  options(flags: Flags, standard: StandardOptions): Options;
}

/**
 * Parses `argv` (without node and the script) as {@link parseStandardOptions} does (`--help`,
 * `--version` and usage errors go through `exit`), then turns the operator's flags into its options.
 *
 * @example
 * export const parseWidgetArgs = (argv: readonly string[]) =>
 *   parseCommandLine<WidgetFlags, WidgetOptions>(argv, {
 *     name: 'widget-operator',
 *     extend: addWidgetFlags,
 *     options: (flags) => widgetOptionsFromFlags(flags),
 *   });
 */
export function parseCommandLine<Flags, Options>(
  argv: readonly string[],
  config: CommandLineConfig<Flags, Options>,
): CommandLine<Options> {
  const { standard, extra } = parseStandardOptions<Flags>(argv, config);
  return { standard, options: config.options(extra, standard) };
}
