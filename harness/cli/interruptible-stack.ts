import { info } from '../../cli/output';

/**
 * Runs a harness that brings up its own stack (chaos, rehearsal) so that Ctrl-C or a SIGTERM stops
 * everything it started, by its own process ids, before the process exits 130.
 */
export async function withInterruptibleStack<T>(what: string, run: (onStack: (stop: () => Promise<void>) => void) => Promise<T>): Promise<T> {
  let stopStack: (() => Promise<void>) | undefined;
  const onSignal = () => {
    info(`interrupted: stopping the ${what} stack`);
    void (stopStack?.() ?? Promise.resolve()).finally(() => process.exit(130));
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  try {
    return await run((stop) => (stopStack = stop));
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}
