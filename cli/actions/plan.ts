// What `kraken-migrate plan …` does (cli/commands/plan.ts declares the commands).
import { DateTime } from 'luxon';
import { expandWindows } from '../../domain/plan-windows';
import type { PlanFile } from '../../domain/plan-file';
import { loadPlanFile } from '../plan-file';
import { printJson, println } from '../output';

/** Each wave's windows as instants (ISO, UTC) and as the plan zone's wall clock. */
export function planSummary(plan: PlanFile) {
  return {
    name: plan.name,
    timezone: plan.timezone,
    waves: plan.waves.map((w) => {
      const windows = expandWindows(w.windows, plan.timezone).map((i) => ({
        start: new Date(i.start).toISOString(),
        end: new Date(i.end).toISOString(),
        local: `${local(i.start, plan.timezone)} – ${local(i.end, plan.timezone)}`,
      }));
      return {
        name: w.name,
        supplier: w.supplier,
        after: w.after,
        concurrency: w.concurrency,
        dailyCap: w.daily_cap ?? null,
        dryRunFirst: w.dry_run_first,
        gates: w.gates,
        windows,
      };
    }),
  };
}

function local(t: number, zone: string): string {
  return DateTime.fromMillis(t, { zone }).toFormat('ccc yyyy-MM-dd HH:mm ZZZZ');
}

export async function validatePlanAction(file: string, opts: { json?: boolean }): Promise<void> {
  const summary = planSummary(loadPlanFile(file));
  if (opts.json) return printJson(summary);
  println(`Plan ${summary.name} (${summary.timezone}): ${summary.waves.length} waves, valid.`);
  for (const w of summary.waves) {
    const gates = [
      w.dryRunFirst ? `dry run first${w.gates.entry.min_dry_run_pass_rate !== undefined ? ` (pass rate ≥ ${w.gates.entry.min_dry_run_pass_rate})` : ''}` : '',
      w.gates.entry.sign_off ? `entry sign-off${typeof w.gates.entry.sign_off === 'string' ? ` by ${w.gates.entry.sign_off}` : ''}` : '',
      `stop the line at ${w.gates.stop_line.max_same_code} same code / ${w.gates.stop_line.max_failure_rate} of ${w.gates.stop_line.over_last}`,
      w.gates.exit.min_reconciled_rate !== undefined ? `reconciled ≥ ${w.gates.exit.min_reconciled_rate}` : '',
      w.gates.exit.sign_off ? `exit sign-off${typeof w.gates.exit.sign_off === 'string' ? ` by ${w.gates.exit.sign_off}` : ''}` : '',
    ].filter(Boolean);
    println(
      `  ${w.name}  supplier ${w.supplier}${w.after.length ? `  after ${w.after.join(', ')}` : ''}  concurrency ${w.concurrency}  daily cap ${w.dailyCap ?? 'none'}`,
    );
    println(`    gates: ${gates.join('; ')}`);
    println(
      `    ${w.windows.length} windows: ${w.windows
        .slice(0, 3)
        .map((x) => x.local)
        .join(', ')}${w.windows.length > 3 ? `, … ${w.windows[w.windows.length - 1].local}` : ''}`,
    );
  }
}
