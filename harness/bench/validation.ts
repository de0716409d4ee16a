import { realisticAccount } from '../../schemas/fixtures';
import { validateAccount } from '../../schemas/validate';

/**
 * Throughput of validateAccount on the realistic fixture (2 meter points, 12 readings), one core.
 * Warms up first (up to 2 s: the optimising compiler takes a while to settle on the hot paths) so the
 * figure reflects steady state, not JIT start-up.
 */
export function benchValidation(opts: { seconds?: number } = {}): { payloadsPerSecond: number; payloads: number; seconds: number } {
  const seconds = opts.seconds ?? 2;
  const payload = realisticAccount();
  const first = validateAccount(payload);
  if (!first.ok) throw new Error(`fixture does not validate: ${JSON.stringify(first.errors)}`);

  const warmUntil = performance.now() + Math.min(2000, seconds * 500);
  while (performance.now() < warmUntil) validateAccount(payload);

  let payloads = 0;
  const start = performance.now();
  const end = start + seconds * 1000;
  let now = start;
  while (now < end) {
    for (let i = 0; i < 100; i++) validateAccount(payload);
    payloads += 100;
    now = performance.now();
  }
  const elapsed = (now - start) / 1000;
  return { payloadsPerSecond: Math.round(payloads / elapsed), payloads, seconds: elapsed };
}

// `npx tsx harness/bench/validation.ts [seconds] [repeats] [--json]`: bench/run.ts runs it as its own process
// before the stack starts, so one idle core is measured, not a core shared with a busy stack.
if (require.main === module) {
  const args = process.argv.slice(2);
  const [seconds, repeats] = args.filter((a) => a !== '--json').map(Number);
  const runs = Array.from({ length: repeats || 1 }, () => benchValidation({ seconds: seconds || 3 }));
  if (args.includes('--json')) process.stdout.write(`${JSON.stringify(runs.map((r) => r.payloadsPerSecond))}\n`);
  else for (const r of runs) console.log(`validateAccount: ${r.payloadsPerSecond} payloads/s (${r.payloads} in ${r.seconds.toFixed(2)} s)`);
}
