import { ApplicationFailure } from '@temporalio/activity';
import type { ScriptMigrator } from '../plain-script';

/** The floor's one activity: does nothing, so what is measured is Temporal's own cost per account. */
export async function floorNoop(account: string): Promise<string> {
  return account;
}

export const floorActivities = { floorNoop };
export type FloorActivities = typeof floorActivities;

/** The ceiling's one activity: the plain script's work for one account; an account it does not complete fails. */
export function ceilingActivities(migrator: ScriptMigrator) {
  return {
    async scriptAccount(account: string): Promise<string> {
      const out = await migrator.migrate(account);
      if (!out.ok) throw ApplicationFailure.nonRetryable(`account ${account} not completed: ${out.code}`, out.code);
      return account;
    },
  };
}
export type CeilingActivities = ReturnType<typeof ceilingActivities>;
