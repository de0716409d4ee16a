import { PREFLIGHT_STAGE, tariffAttrFor } from '../source/catalogue-check';
import { claimInboxEvent, outcomeUpdate, platformErrorDetail } from '../ledger';
import { Context } from '@temporalio/activity';
import { importEventSignalOf } from '../domain/inputs';
import { PlatformClientError } from '../clients/platform';
import { finalOutcome, readsBack } from '../domain/final-outcome';
import { attemptRef, type ActivityContext } from './deps';
import { checkAccount, type CheckedAccount } from './read-back';
import type { AccountActivities } from './types';

function firstAttempt(): boolean {
  try {
    return Context.current().info.attempt === 1;
  } catch {
    return true; // called outside an activity (the CLI): there is no retry to spare
  }
}

/** Await-the-outcome and record: the inbox read of the fallback path and the one recorded outcome. */
export function outcomeActivities(
  ctx: Pick<ActivityContext, 'ledger' | 'pool' | 'logger' | 'reconciliations' | 'platform'>,
): Pick<AccountActivities, 'claimInboxEvent' | 'recordOutcome'> {
  const { ledger, pool } = ctx;
  return {
    async claimInboxEvent(input) {
      const e = await claimInboxEvent(pool, attemptRef(input));
      if (!e) return undefined;
      // An account's terminal event, as the router would have signalled it (events/router.ts).
      return importEventSignalOf({ ...e, resourceType: null });
    },

    async recordOutcome(input) {
      const ref = attemptRef(input);
      const base = input.outcome;
      // tariff_code_not_found names no field: the one tariff the pre-flight could not confirm is it.
      const tariffAttr =
        base.outcome === 'failed' && !base.attr && !input.explainedAttr && base.code === 'tariff_code_not_found'
          ? tariffAttrFor(base.code, await ledger.errorsOf(ref, PREFLIGHT_STAGE))
          : undefined;
      const readBack = readsBack(input, input.dryRun, firstAttempt());
      const checked = readBack ? await readBackOnce(base.accountNumber!) : undefined;
      let o = finalOutcome(input, { tariffAttr, readBack: checked?.result });
      // import_process_failed_validation: explainFailedValidation has recorded the field errors already.
      if (o.outcome === 'failed' && (o.source === 'event' || o.source === 'poll') && o.code && o.code !== 'import_process_failed_validation') {
        const detail = await platformErrorDetail(pool, input.externalAccountNumber, o.code);
        await ledger.replaceErrors(ref, 'platform', [{ stage: 'platform', code: o.code, attr: o.attr, detail }]);
      }
      // A read-back's check and the outcome it decides are written together.
      const set = checked ? await ctx.reconciliations.record(checked.check, (first) => outcomeUpdate(o, first)) : await ledger.recordOutcome(ref, o);
      // A retried record whose first attempt did record: the ledger's outcome stands (a second read-back may have differed).
      if (!set && readBack) o = (await ledger.recordedOutcomes(ref.runId, [ref.externalAccountNumber]))[0] ?? o;
      ctx.logger.info(
        { runId: ref.runId, account: ref.externalAccountNumber, outcome: o.outcome, stage: o.stage, code: o.code, source: o.source, recorded: set },
        'account outcome',
      );
      return o;

      /**
       * One GET, no retries of its own: the record step must not wait on the platform. A read-back
       * the platform does not answer leaves the account completed and unchecked (`run reconcile`
       * checks it later); any other failure fails the attempt, and the retry records without it.
       */
      async function readBackOnce(accountNumber: string): Promise<CheckedAccount | undefined> {
        try {
          return await checkAccount(ctx, { ...ref, accountNumber, checkedBy: 'workflow' });
        } catch (e) {
          if (!(e instanceof PlatformClientError)) throw e;
          ctx.logger.warn(
            { runId: ref.runId, account: ref.externalAccountNumber, code: e.code },
            'read-back failed; account left unchecked (run reconcile checks it)',
          );
          return undefined;
        }
      }
    },
  };
}
