/**
 * How a long-running command learns it must stop, and why it never dies half-way through stopping.
 *
 * A terminal's Ctrl-C is SIGINT to the whole foreground process group: npm, the shell and node all
 * get it, and npm forwards it to node once more. Closing the terminal is SIGHUP; a supervisor sends
 * SIGTERM. A node process with no listener left for a signal exits at once, orphaning the servers it
 * started in their own process groups. So once held, every stop signal is handled here for the rest of
 * the process's life: the first asks for a stop, a repeat of that same key press is ignored, and a
 * later one (a second Ctrl-C while stopping) asks to stop faster. Imports nothing of the project.
 */

export const STOP_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;
export type StopSignal = (typeof STOP_SIGNALS)[number];

/** A signal within this long of the first is the same key press arriving twice (terminal + npm). */
export const SAME_PRESS_MS = 1_000;

export interface StopRequests {
  /** The first stop signal received, if any. */
  first(): StopSignal | undefined;
  /** Resolves with the first stop signal. */
  readonly requested: Promise<StopSignal>;
  /** Runs `cb` on every stop signal after the first key press: the user wants it over sooner. */
  onRepeat(cb: (signal: StopSignal) => void): void;
}

let held: StopRequests | undefined;

/** Holds SIGINT, SIGTERM and SIGHUP for this process from now on (idempotent). */
export function holdStopSignals(now: () => number = Date.now): StopRequests {
  if (held) return held;
  let first: { signal: StopSignal; at: number } | undefined;
  let resolveRequested: (s: StopSignal) => void = () => {};
  const requested = new Promise<StopSignal>((r) => (resolveRequested = r));
  const repeats: Array<(s: StopSignal) => void> = [];
  const on = (signal: StopSignal) => {
    const at = now();
    if (!first) {
      first = { signal, at };
      resolveRequested(signal);
      return;
    }
    if (at - first.at < SAME_PRESS_MS) return;
    for (const cb of repeats) cb(signal);
  };
  for (const s of STOP_SIGNALS) process.on(s, on);
  // Once the terminal is gone (SIGHUP), writing to it fails with EIO or EPIPE: that must not end the
  // process before it has stopped what it started.
  for (const stream of [process.stdout, process.stderr]) stream.on('error', () => {});
  held = { first: () => first?.signal, requested, onRepeat: (cb) => void repeats.push(cb) };
  return held;
}
