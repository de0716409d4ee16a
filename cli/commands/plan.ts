import { Command } from 'commander';
import { declareOptions } from '../option-table';
import * as planOptions from '../options/plan';
import { PLAN_REPORT_OPTIONS } from '../options/report';

// eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded when an action runs (cli/program.ts says why)
const planActions = (): typeof import('../actions/plan') => require('../actions/plan');
// eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded when an action runs
const planReport = (): typeof import('../report/plan') => require('../report/plan');

export function planCommand(): Command {
  const plan = new Command('plan').description('a cutover plan: waves of runs in windows, with daily caps and gates (docs/plan.md)');

  declareOptions(plan.command('validate'), planOptions.VALIDATE_PLAN_OPTIONS)
    .description('check a plan file: every problem named by its field and rule (exit 2), or a summary of its waves and windows')
    .argument('<file>', 'the plan (YAML)')
    .addHelpText('after', '\nExample:\n  $ kraken-migrate plan validate cutover.yaml')
    .action(async (file: string, opts) => planActions().validatePlanAction(file, opts));

  declareOptions(plan.command('start'), planOptions.START_PLAN_OPTIONS)
    .description("start a plan's workflow: each wave's run opens and closes with its windows and daily cap, and waits for its sign-offs")
    .argument('<file>', 'the plan (YAML)')
    .action(async (file: string, opts) => planActions().startPlanAction(file, opts));

  declareOptions(plan.command('status <planId>'), planOptions.PLAN_STATUS_OPTIONS)
    .description('each wave: state, runs, accounts, windows, stop the line, gates')
    .action(async (planId: string, opts) => planActions().planStatusAction(planId, opts));

  declareOptions(plan.command('report <planId>'), PLAN_REPORT_OPTIONS)
    .description('write plan-report.html (planned against actual per wave and per local day, trial loads, sign-offs) and plan-waves.csv, plan-days.csv')
    .action(async (planId: string, opts) => planReport().planReportAction(planId, opts));

  declareOptions(plan.command('approve <planId>'), planOptions.APPROVE_PLAN_OPTIONS)
    .description("sign a wave's entry or exit gate off (refused, exit 1, with the reason when the gate does not wait or its numbers are not met)")
    .action(async (planId: string, opts) => planActions().approvePlanAction(planId, opts));

  for (const action of ['resume', 'skip', 'cancel', 'trial'] as const) {
    const cmd = declareOptions(
      plan.command(`${action} <planId>`),
      action === 'cancel' ? planOptions.CANCEL_PLAN_OPTIONS : planOptions.WAVE_CONTROL_OPTIONS,
    ).description(
      {
        resume: "resume a wave's run (or its trial load) after it stopped the line",
        trial: 'run another trial load (dry run) of a wave at its entry gate, e.g. after its data was fixed (refused otherwise, exit 1)',
        skip: 'skip a wave (its run is cancelled: accounts in flight finish, the rest are recorded not attempted); the plan goes on to the next',
        cancel: "cancel the plan (the current wave's run is cancelled)",
      }[action],
    );
    cmd.action(async (planId: string, opts) => planActions().controlPlanAction(action, planId, opts));
  }

  return plan;
}
