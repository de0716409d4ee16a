import { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { optionsSchema, parseOptions } from '../../../cli/option-schema';
import { declareOptions, jsonOption, optionTable } from '../../../cli/option-table';

/** An option stated once (cli/option-table.ts): what commander reads is what its rule checks. */
describe('an option table', () => {
  const table = optionTable({
    pollSeconds: { flags: '--poll-seconds <n>', description: 'how often', default: '30', schema: (k) => k.positiveInt },
    json: jsonOption(),
  });
  const parsed = (argv: string[]) => {
    const cmd = declareOptions(new Command('x').exitOverride(), table);
    cmd.parse(argv, { from: 'user' });
    return parseOptions(optionsSchema(table), cmd.opts());
  };

  it('gives the action what the operator typed, checked, and the default when left out', () => {
    expect(parsed(['--poll-seconds', '5', '--json'])).toEqual({ pollSeconds: 5, json: true });
    expect(parsed([])).toEqual({ pollSeconds: 30 });
    expect(() => parsed(['--poll-seconds', '0'])).toThrow(/--poll-seconds: must be a positive integer, got "0"/);
  });

  it('refuses a name that is not the one commander sets (the rule would never see the value)', () => {
    const misnamed = { poll: { flags: '--poll-seconds <n>', description: 'how often', schema: () => undefined as never } };
    expect(() => declareOptions(new Command('x'), misnamed)).toThrow('--poll-seconds <n> is stated as poll, but commander sets pollSeconds');
  });
});
