import { ApplicationFailure } from '@temporalio/activity';
import type { ScriptMigrator } from '../plain-script';
import type { KeptPromises } from './kept';

/** The floor's one activity: does nothing, so what is measured is Temporal's own cost per account. */
export async function floorNoop(account: string): Promise<string> {
  return account;
}

export const floorActivities = { floorNoop };
export type FloorActivities = typeof floorActivities;

/**
 * The ceiling's one activity: the plain script's work for one account; an account it does not
 * complete fails. With `kept` (the `ceiling-kept` pass) a completed account is also read back and
 * its one outcome recorded, in the same activity.
 */
export function ceilingActivities(migrator: ScriptMigrator, kept?: KeptPromises) {
  return {
    async scriptAccount(account: string): Promise<string> {
      const out = await migrator.migrate(account);
      if (!out.ok) throw ApplicationFailure.nonRetryable(`account ${account} not completed: ${out.code}`, out.code);
      if (kept) {
        if (!out.accountNumber) throw ApplicationFailure.nonRetryable(`account ${account} processed without an account number`, 'no_account_number');
        await kept.keep(account, out.accountNumber, out.payload);
      }
      return account;
    },
  };
}
export type CeilingActivities = ReturnType<typeof ceilingActivities>;
