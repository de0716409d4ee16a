import type { Command } from 'commander';
import { buildProgram } from '../../cli/program';
import { chaosCommand } from './commands/chaos';
import { demoCommand } from './commands/demo';
import { devCommand } from './commands/dev';
import { generateCommand } from './commands/generate';
import { generateChangesCommand } from './commands/generate-changes';
import { rehearsalCommand } from './commands/rehearsal';
import { seedLedgerCommand } from './commands/seed-ledger';

/**
 * The product's command tree plus the development harness: the embedded stack (dev, demo), synthetic
 * data (generate, generate-changes), the proving runs (chaos, rehearsal) and `db seed-ledger`. The
 * installed `kraken-migrate` (bin/, cli/main.ts) has none of these; `npm run demo|dev|chaos|rehearsal`
 * and `npm run harness -- …` come here.
 */
export function buildHarnessProgram(): Command {
  return buildProgram((program) => {
    program.name('kraken-migrate (harness)');
    for (const cmd of [generateCommand(), generateChangesCommand(), devCommand(), demoCommand(), chaosCommand(), rehearsalCommand()]) {
      program.addCommand(cmd);
    }
    program.commands.find((c) => c.name() === 'db')?.addCommand(seedLedgerCommand());
  });
}
