import type { AccountOutcome, ScheduleWindow } from '../domain/inputs';
import type { SupplyRead } from '../domain/supply';

/**
 * What an account's page in the Temporal UI says it is doing (`setCurrentDetails`), and the fixed
 * summaries of its activities and timers. Identifiers only (the supplier code, the external account
 * number and run id that are already in workflow ids): never a name, date of birth, phone or address.
 */
export type AccountStep =
  | { step: 'prepare' }
  | { step: 'documents' }
  | { step: 'guard'; recheckSeconds: number }
  | { step: 'schedule' }
  | { step: 'await'; window: ScheduleWindow; phase: 'event'; waitSeconds: number }
  | { step: 'await'; window: ScheduleWindow; phase: 'inbox' }
  | { step: 'await'; window: ScheduleWindow; phase: 'poll'; lastStatus: string; polls: number; nextPollSeconds: number }
  | { step: 'reconcile' }
  | { step: 'post-import' }
  | { step: 'record'; outcome?: AccountOutcome };

export interface AccountRef {
  supplierCode: string;
  externalAccountNumber: string;
  runId: string;
}

const code = (s: string) => `\`${s.replace(/`/g, "'")}\``;

function windowText(w: ScheduleWindow): string {
  if (w.start && w.end) return `the schedule window ${w.start} to ${w.end}`;
  if (w.start) return `the schedule window from ${w.start} (${w.hours} h)`;
  return `the schedule window of ${w.hours} h from scheduling`;
}

function headline(s: AccountStep): [number, string] {
  switch (s.step) {
    case 'prepare':
      // Prepare stages the documents in the same activity (activities/prepare.ts): step 2 shows only in older histories.
      return [1, 'preparing: source, transform, validate, documents staged'];
    case 'documents':
      return [2, 'staging documents in the platform bucket'];
    case 'guard':
      return [3, 'waiting for the supplier'];
    case 'schedule':
      return [4, 'scheduling with the data-import API'];
    case 'await':
      return [5, "waiting for the platform's import"];
    case 'reconcile':
      return [5, 'imported: reading the account back'];
    case 'post-import':
      return [5, 'imported: carrying changes over'];
    case 'record':
      return [6, s.outcome ? `recorded: ${s.outcome.outcome}` : 'recording the outcome in the ledger'];
  }
}

function waitingFor(s: AccountStep, ref: AccountRef): string | undefined {
  switch (s.step) {
    case 'guard':
      return `Supplier ${code(ref.supplierCode)} is paused: waits for the operator's \`supplier resume\`, rechecking every ${s.recheckSeconds} s.`;
    case 'schedule':
      return `Tariff pre-flight, then the schedule call for supplier ${code(ref.supplierCode)}.`;
    case 'await':
      if (s.phase === 'event') return `Scheduled for ${windowText(s.window)}; waits for the platform's event (up to ${s.waitSeconds} s, then polls).`;
      if (s.phase === 'inbox') return `Scheduled for ${windowText(s.window)}; no event signalled: checking the events inbox.`;
      return `Scheduled for ${windowText(s.window)}; import status ${code(s.lastStatus)} after ${s.polls} poll${s.polls === 1 ? '' : 's'}, next in ${s.nextPollSeconds} s (or at the platform's event).`;
    case 'post-import':
      return 'Changes since extraction, as a child workflow; they never change this outcome.';
    case 'record':
      if (!s.outcome) return undefined;
      return (
        [s.outcome.code && `code ${code(s.outcome.code)}`, s.outcome.accountNumber && `platform account ${code(s.outcome.accountNumber)}`]
          .filter(Boolean)
          .join(', ') || undefined
      );
    default:
      return undefined;
  }
}

/** The account page's current details: a bold headline with the step, what it waits for, and whose it is. */
export function accountDetails(s: AccountStep, ref: AccountRef): string {
  const [n, title] = headline(s);
  const lines = [`**Step ${n} of 6: ${title}**`];
  const why = waitingFor(s, ref);
  if (why) lines.push(why);
  lines.push(`Account ${code(ref.externalAccountNumber)} of supplier ${code(ref.supplierCode)}, run ${code(ref.runId)}.`);
  return lines.join('\n\n');
}

/**
 * A switch account's page once its outcome is recorded: the record step, then the meter points its
 * follow waits for (as the follow first read them) and those it has left, or, before that read, the
 * follow that will. MPxNs are meter identifiers, not personal data (docs/supply.md).
 */
export function accountSwitchDetails(outcome: AccountOutcome, ref: AccountRef, followId: string, points: SupplyRead['points'] | undefined): string {
  const lines = [accountDetails({ step: 'record', outcome }, ref)];
  const follow = `Followed to supply by ${code(followId)}: its page shows each status as it moves; \`run supply ${ref.runId}\` lists them.`;
  if (points === undefined) return [...lines, `**Switch: registration flows under way**`, follow].join('\n\n');
  const waiting = points.filter((p) => p.outcome === undefined);
  const left = points.filter((p) => p.outcome !== undefined);
  lines.push(`**Switch: waiting for ${waiting.length} of ${points.length} meter points to reach a final state**`);
  if (waiting.length) lines.push(waiting.map((p) => `- ${code(p.mpxn)}: ${p.status}`).join('\n'));
  if (left.length) lines.push(`Left: ${left.map((p) => `${code(p.mpxn)} ${p.status} (${p.outcome})`).join(', ')}.`);
  return [...lines, follow].join('\n\n');
}

/** Fixed one-line summaries for the timeline (the same on every account: no data at all). */
export const SUMMARIES = {
  prepare: 'Step 1: source, transform, validate, stage documents',
  stageDocuments: 'Step 2: stage documents',
  supplierStatus: "Step 3: read the supplier's status",
  supplierRecheck: "Step 3: wait for the supplier's resume (or recheck)",
  recordSupplierNotOngoing: 'Step 4: record the platform refusing the supplier',
  schedule: 'Step 4: tariff pre-flight and schedule the import',
  eventWait: "Step 5: wait for the platform's import event",
  inbox: 'Step 5: claim the event from the inbox',
  importStatus: 'Step 5: poll the import status',
  pollBackoff: 'Step 5: wait before the next status poll',
  readBack: 'Step 5: read the account back',
  explain: 'Step 6: ask the validate endpoint why',
  record: 'Step 6: record the outcome in the ledger',
} as const;
