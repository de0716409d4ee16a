import { POST_IMPORT_KINDS, type PostImportKind } from '../../schemas/post-import';
import type { ChangeRecord } from '../../source/changes';
import { minimalPdf } from './pdf';
import { Rng } from './prng';
import type { GeneratedDocument } from './generator';

/**
 * Synthetic changes recorded after extraction, for a share of the given accounts: notes,
 * transactions, statements (with their PDF) and payment instructions, with the ground truth of
 * how many of each every account must end up with on the platform. Deterministic for a seed and
 * a `recordedAt`; the ids embed the seed, so another day's changes (another seed) are new items.
 */

export interface GeneratedChanges {
  changes: ChangeRecord[];
  documents: GeneratedDocument[];
  /** external account number → kind → number of items. */
  truth: Record<string, Partial<Record<PostImportKind, number>>>;
}

const NOTE_BODIES = [
  'Customer called to update their contact preferences.',
  'Meter reading disputed; agreed to re-read next month.',
  'Payment plan discussed; customer will call back.',
  'Moved to paperless billing at the customer’s request.',
];
const CREDIT_REASONS = ['BALANCE_ADJUSTMENT', 'CUSTOMER_SERVICE_GESTURE'];
const CHARGE_REASONS = ['IMPORTED_CHARGE'];

const isoDate = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const isoSeconds = (ms: number) => `${new Date(ms).toISOString().slice(0, 19)}Z`;

export function generateChanges(opts: { accounts: string[]; share: number; seed: number; recordedAt: Date }): GeneratedChanges {
  const out: GeneratedChanges = { changes: [], documents: [], truth: {} };
  const at = opts.recordedAt.getTime();
  const day = 86_400_000;
  opts.accounts.forEach((ext, index) => {
    const rng = Rng.forKey(opts.seed, index, 0x15);
    if (!rng.chance(opts.share)) return;
    // 1–4 changes, at least one note, so every chosen account has something to carry over.
    const kinds: PostImportKind[] = ['note'];
    const extra = rng.int(0, 3);
    for (let i = 0; i < extra; i++) kinds.push(rng.pick(POST_IMPORT_KINDS));
    // One payment instruction per account at most: the platform keeps one active instruction.
    const seen = new Set<PostImportKind>();
    const chosen = kinds.filter((k) => (k === 'payment_instruction' ? !seen.has(k) && (seen.add(k), true) : true));
    const truth: Partial<Record<PostImportKind, number>> = {};
    chosen.forEach((kind, n) => {
      const id = `${ext}-s${opts.seed}-${n + 1}`;
      // Recorded at a minute-spaced time after extraction; items are dated the day before (never in the future).
      const recorded = at + n * 60_000;
      const base = { change_id: `chg-${id}`, external_account_number: ext, recorded_at: new Date(recorded).toISOString() };
      truth[kind] = (truth[kind] ?? 0) + 1;
      switch (kind) {
        case 'note':
          out.changes.push({
            ...base,
            change: { kind, item: { external_id: `note-${id}`, body: rng.pick(NOTE_BODIES), created_at: isoSeconds(recorded - day) } },
          });
          return;
        case 'transaction': {
          const type = rng.pick(['CREDIT', 'CHARGE'] as const);
          const amount = `${rng.int(1, 200)}.${String(rng.int(0, 99)).padStart(2, '0')}`;
          const reason = type === 'CREDIT' ? rng.pick(CREDIT_REASONS) : rng.pick(CHARGE_REASONS);
          out.changes.push({
            ...base,
            change: { kind, item: { transaction_id: `tx-${id}`, transaction_date: isoDate(recorded - day), amount, type, reason } },
          });
          return;
        }
        case 'statement': {
          const to = isoDate(recorded - day);
          const from = isoDate(recorded - 31 * day);
          const file = `statements/${ext}/stmt-${id}.pdf`;
          out.documents.push({ relativePath: file, bytes: minimalPdf([`Statement ${id}`, `${from} to ${to}`]) });
          out.changes.push({
            ...base,
            change: {
              kind,
              item: {
                statement_id: `stmt-${id}`,
                bill_period_from_date: from,
                bill_period_to_date: to,
                issued_date: to,
                number: String(n + 1),
                statement_path: `/${file}`,
              },
            },
            document_path: file,
          });
          return;
        }
        case 'payment_instruction':
          out.changes.push({ ...base, change: { kind, item: { vendor: 'STRIPE', type: 'CARD', reference: `pi-${id}` } } });
      }
    });
    out.truth[ext] = truth;
  });
  return out;
}
