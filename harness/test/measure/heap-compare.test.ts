import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { Worker } from 'node:worker_threads';
import { afterAll, describe, expect, it } from 'vitest';
import { diffGroups, groupHeap, readSnapshot } from '../../measure/heap-compare';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'heap-compare-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

/** A thread of its own (a small heap) that keeps 1,000 `HeldAccount`s once asked. */
const THREAD = `
const { parentPort } = require('node:worker_threads');
class HeldAccount { constructor(i) { this.i = i; this.name = 'account ' + i; } }
const kept = [];
parentPort.on('message', () => { for (let i = 0; i < 1000; i++) kept.push(new HeldAccount(i)); parentPort.postMessage('held'); });
`;

describe('heap-compare: what one heap snapshot holds more than another', () => {
  it('names the constructor that grew, by count and bytes, and who holds it', async () => {
    const w = new Worker(THREAD, { eval: true });
    await new Promise((resolve) => w.once('online', resolve));
    try {
      const snap = async (name: string) => {
        const file = path.join(dir, name);
        await pipeline(await w.getHeapSnapshot(), fs.createWriteStream(file));
        return readSnapshot(file);
      };
      const before = await snap('before.heapsnapshot');
      w.postMessage('hold');
      await new Promise((resolve) => w.once('message', resolve));
      const after = await snap('after.heapsnapshot');
      const diffs = diffGroups(groupHeap(before), groupHeap(after));
      const held = diffs.find((d) => d.group === 'object HeldAccount');
      expect(held?.count).toBe(1000);
      expect(held!.bytes).toBeGreaterThanOrEqual(1000 * 16);
      // Largest growth first: nothing that grew less is listed before it.
      expect(diffs.indexOf(held!)).toBe(diffs.findIndex((d) => d.bytes <= held!.bytes));
    } finally {
      await w.terminate();
    }
  });
});
