import { Command } from 'commander';

// eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded when an action runs (cli/program.ts says why)
const planActions = (): typeof import('../actions/plan') => require('../actions/plan');
// eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded when an action runs
const planReport = (): typeof import('../report/plan') => require('../report/plan');

export function planCommand(): Command {
  const plan = new Command('plan').description('a cutover plan: waves of runs in windows, with daily caps and gates (docs/plan.md)');

  plan
    .command('validate')
    .description('check a plan file: every problem named by its field and rule (exit 2), or a summary of its waves and windows')
    .argument('<file>', 'the plan (YAML)')
    .option('--json', 'print the parsed plan with every window as instants')
    .option('--rate <accounts-per-second>', "check each wave's accounts fit its windows and daily cap at this rate (default: the windows and caps alone)")
    .addHelpText('after', '\nExamples:\n  $ kraken-migrate plan validate cutover.yaml\n  $ kraken-migrate plan validate cutover.yaml --rate 2.5')
    .action(async (file: string, opts) => planActions().validatePlanAction(file, opts));

  plan
    .command('start')
    .description("start a plan's workflow: each wave's run opens and closes with its windows and daily cap, and waits for its sign-offs")
    .argument('<file>', 'the plan (YAML)')
    .option('--plan-id <id>', 'plan id (default: NAME-YYYYMMDD-HHMMSS-xxxx); wave W runs as run <id>.W')
    .option('--poll-seconds <n>', "how often the plan looks at its wave's run between window events", '30')
    .option('--json', 'print {planId, workflowId, uiUrl, runs}')
    .action(async (file: string, opts) => planActions().startPlanAction(file, opts));

  plan
    .command('status <planId>')
    .description('each wave: state, runs, accounts, windows, stop the line, gates, and whether what is left fits its windows and cap')
    .option('--json', 'machine-readable output')
    .option('--rate <accounts-per-second>', "the rate to check the waves' fit at (default: each wave's run's rate over the last 10 minutes)")
    .action(async (planId: string, opts) => planActions().planStatusAction(planId, opts));

  plan
    .command('report <planId>')
    .description('write plan-report.html (planned against actual per wave and per local day, trial loads, sign-offs) and plan-waves.csv, plan-days.csv')
    .option('--out <dir>', 'output directory (default: <DATA_DIR>/reports/plan-<planId>)')
    .option('--json', 'print the paths and the numbers as JSON')
    .action(async (planId: string, opts) => planReport().planReportAction(planId, opts));

  plan
    .command('approve <planId>')
    .description("sign a wave's entry or exit gate off (refused, exit 1, with the reason when the gate does not wait or its numbers are not met)")
    .requiredOption('--wave <name>', 'the wave')
    .requiredOption('--gate <gate>', 'entry or exit')
    .requiredOption('--by <name>', 'who signs off (kept in the ledger with the time)')
    .option('--note <text>', 'why, kept with the sign-off')
    .option('--json', 'print the wave as plan status --json does')
    .action(async (planId: string, opts) => planActions().approvePlanAction(planId, opts));

  for (const action of ['resume', 'skip', 'cancel', 'trial'] as const) {
    const cmd = plan
      .command(`${action} <planId>`)
      .description(
        {
          resume: "resume a wave's run (or its trial load) after it stopped the line",
          trial: 'run another trial load (dry run) of a wave at its entry gate, e.g. after its data was fixed (refused otherwise, exit 1)',
          skip: 'skip a wave (its run is cancelled: accounts in flight finish, the rest are recorded not attempted); the plan goes on to the next',
          cancel: "cancel the plan (the current wave's run is cancelled)",
        }[action],
      )
      .option('--json', 'print the plan status as JSON');
    if (action === 'cancel') cmd.option('--wave <name>', 'ignored: cancel ends the whole plan');
    else cmd.requiredOption('--wave <name>', 'the wave');
    cmd.action(async (planId: string, opts) => planActions().controlPlanAction(action, planId, opts));
  }

  return plan;
}
