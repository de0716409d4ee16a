// Each command option stated once: its flags, help and default for commander, and its rule for
// zod, side by side in the command's table (cli/options/). Declaring the CLI reads the tables
// without loading zod (cli/program.ts says why): a rule is a function of the kit, built only when
// the action runs (`optionsSchema`, cli/option-schema.ts).
import { Option, type Command } from 'commander';
import type { z } from 'zod';
import type { OptionKit } from './option-schema';

export interface OptionSpec {
  /** As commander reads them: `--limit <n>`, `--no-stop-line`, `--code <code...>`. */
  flags: string;
  description: string;
  /** The value commander fills in when the option is left out (shown in --help). */
  default?: unknown;
  /** Commander refuses the command without it. */
  required?: boolean;
  /** Commander's own list of allowed values (shown in --help). */
  choices?: readonly string[];
  /** Its rule, checked when the action runs (a usage error names the option). */
  schema: (k: OptionKit) => z.ZodType;
}

/** A command's options, under the names commander gives them (`--payloads-table` → `payloadsTable`). */
export type OptionTable = Record<string, OptionSpec>;

/** A table as written, its rules' types kept (for `optionsSchema`). */
export const optionTable = <T extends OptionTable>(table: T): T => table;

/** `--json`, the same flag in every command: only its help says what it prints. */
export const jsonOption = (description = 'machine-readable output') => ({ flags: '--json', description, schema: (k: OptionKit) => k.flag });

/** Adds a table's options to a command, in the table's order. */
export function declareOptions(cmd: Command, table: OptionTable): Command {
  for (const [name, spec] of Object.entries(table)) {
    const option = new Option(spec.flags, spec.description);
    // The table's name is the key the action's schema reads: it must be the one commander sets.
    if (option.attributeName() !== name) throw new Error(`${spec.flags} is stated as ${name}, but commander sets ${option.attributeName()}`);
    if (spec.default !== undefined) option.default(spec.default);
    if (spec.choices) option.choices(spec.choices);
    if (spec.required) option.makeOptionMandatory();
    cmd.addOption(option);
  }
  return cmd;
}
