/**
 * Runs a start-up step that reads what the user gave (flags, a kubeconfig path). If it throws, the
 * process prints one line, `error: <message>` (plus `hint` when given), and exits with code 2, as a
 * command-line tool should: a wrong path is the user's to fix, and a stack trace would bury it.
 *
 * @example
 * const options = exitOnError(() => managerOptionsFromFlags(standard));
 */
export function exitOnError<T>(step: () => T, hint?: string): T {
  try {
    return step();
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    process.stderr.write(`error: ${message}\n${hint ? `${hint}\n` : ''}`);
    process.exit(2);
  }
}
