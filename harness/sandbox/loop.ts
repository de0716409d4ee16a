/**
 * A background poller: runs `tick` every `intervalMs` (at once again when a tick reports more
 * work), can be woken early, and stops after the running tick ends. Tick errors are reported,
 * never thrown: the loop must outlive a database hiccup.
 */
export interface Loop {
  wake(): void;
  stop(): Promise<void>;
}

export function startLoop(tick: () => Promise<boolean>, intervalMs: number, onError: (e: unknown) => void): Loop {
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;
  let again = false;

  const run = () => {
    timer = undefined;
    if (stopped) return;
    if (running) {
      again = true;
      return;
    }
    running = (async () => {
      let more = false;
      try {
        more = await tick();
      } catch (e) {
        onError(e);
      }
      running = undefined;
      if (stopped) return;
      const soon = more || again;
      again = false;
      timer = setTimeout(run, soon ? 0 : intervalMs);
    })();
  };
  timer = setTimeout(run, 0);

  return {
    wake() {
      if (stopped) return;
      if (running) {
        again = true;
        return;
      }
      if (timer) clearTimeout(timer);
      timer = setTimeout(run, 0);
    },
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      await running;
    },
  };
}

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
