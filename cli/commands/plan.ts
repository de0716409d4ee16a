import { Command } from 'commander';

// eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded when an action runs (cli/program.ts says why)
const planActions = (): typeof import('../actions/plan') => require('../actions/plan');

export function planCommand(): Command {
  const plan = new Command('plan').description('a cutover plan: waves of runs in windows, with daily caps and gates (docs/plan.md)');

  plan
    .command('validate')
    .description('check a plan file: every problem named by its field and rule (exit 2), or a summary of its waves and windows')
    .argument('<file>', 'the plan (YAML)')
    .option('--json', 'print the parsed plan with every window as instants')
    .addHelpText('after', '\nExample:\n  $ kraken-migrate plan validate cutover.yaml')
    .action(async (file: string, opts) => planActions().validatePlanAction(file, opts));

  return plan;
}
