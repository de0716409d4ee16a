import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createChangeFeed, writeChanges } from '../../../source/changes';
import { generateChanges } from '../../../harness/synthetic/generate-changes';
import { itemKey } from '../../../schemas/post-import';

const accounts = Array.from({ length: 50 }, (_, i) => `ACC-${String(i).padStart(4, '0')}`);
const at = new Date('2026-01-10T12:00:00Z');

describe('changes after extraction', () => {
  it('generates changes for about the share asked, deterministically, with ground truth that counts them', () => {
    const a = generateChanges({ accounts, share: 0.5, seed: 3, recordedAt: at });
    expect(generateChanges({ accounts, share: 0.5, seed: 3, recordedAt: at })).toEqual(a);
    const changed = Object.keys(a.truth);
    expect(changed.length).toBeGreaterThan(15);
    expect(changed.length).toBeLessThan(35);
    const counted = Object.values(a.truth).reduce((n, t) => n + Object.values(t).reduce((m, k) => m + (k ?? 0), 0), 0);
    expect(counted).toBe(a.changes.length);
    // Keys are unique per account and kind (what the ledger and the platform dedupe by).
    const keys = a.changes.map((c) => `${c.external_account_number}|${c.change.kind}|${itemKey(c.change)}`);
    expect(new Set(keys).size).toBe(keys.length);
    // Every statement has its PDF.
    const statements = a.changes.filter((c) => c.change.kind === 'statement');
    expect(a.documents.map((d) => d.relativePath).sort()).toEqual(statements.map((s) => s.document_path).sort());
    // Another seed is another day: new ids.
    const b = generateChanges({ accounts, share: 0.5, seed: 4, recordedAt: at });
    expect(b.changes.some((c) => keys.includes(`${c.external_account_number}|${c.change.kind}|${itemKey(c.change)}`))).toBe(false);
  });

  it('a file source reads the changes recorded after a point in time, and refuses a malformed one naming the field', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'km-changes-'));
    const spec = { kind: 'file' as const, path: path.join(dir, 'accounts.jsonl') };
    const g = generateChanges({ accounts, share: 1, seed: 1, recordedAt: at });
    await writeChanges(spec, g.changes, {});
    const feed = createChangeFeed(spec, {});
    const all = await feed.changesSince('ACC-0001', new Date('2026-01-01T00:00:00Z'));
    expect(all.length).toBe(Object.values(g.truth['ACC-0001']).reduce((n, k) => n + (k ?? 0), 0));
    expect(await feed.changesSince('ACC-0001', new Date('2026-01-11T00:00:00Z'))).toEqual([]);

    fs.appendFileSync(
      path.join(dir, 'accounts.changes.jsonl'),
      `${JSON.stringify({ ...g.changes[0], change: { kind: 'note', item: { external_id: 'x', body: '', created_at: '2026-01-01T00:00:00Z' } } })}\n`,
    );
    await expect(feed.changesSince(g.changes[0].external_account_number, new Date(0))).rejects.toThrow(/change\.item\.body/);
  });
});
