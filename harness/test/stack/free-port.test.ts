import fs from 'node:fs';
import net from 'node:net';
import { describe, expect, it } from 'vitest';
import { describeError, EXIT } from '../../../cli/errors';
import { assertPortFree, freePort, listenPortRange, reservePort } from '../../stack/child-process';
import { assertReachable } from '../../stack/postgres';

function kernelEphemeralRange(): [number, number] | undefined {
  try {
    const [lo, hi] = fs.readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/).map(Number);
    return [lo, hi];
  } catch {
    return undefined;
  }
}

describe('freePort', () => {
  it('hands out ports no outgoing connection can take, never the same one twice, each bindable', async () => {
    const ports = [];
    for (let i = 0; i < 40; i++) ports.push(await freePort());
    expect(new Set(ports).size).toBe(ports.length);
    const eph = kernelEphemeralRange();
    const [lo, hi] = listenPortRange();
    for (const p of ports) {
      expect(p).toBeGreaterThanOrEqual(lo);
      expect(p).toBeLessThanOrEqual(hi);
      if (eph) expect(p < eph[0] || p > eph[1], `port ${p} is inside the ephemeral range ${eph.join('-')}`).toBe(true);
    }
    // Each really binds on loopback.
    const servers = await Promise.all(
      ports.slice(0, 5).map(
        (port) =>
          new Promise<net.Server>((resolve, reject) => {
            const s = net.createServer();
            s.once('error', reject);
            s.listen(port, '127.0.0.1', () => resolve(s));
          }),
      ),
    );
    await Promise.all(servers.map((s) => new Promise((r) => s.close(r))));
  });

  it("keeps to a ceiling (the full server's membership ports must fit a smallint) and names one it cannot meet", async () => {
    const [lo] = listenPortRange();
    for (let i = 0; i < 20; i++) {
      const port = await freePort(lo + 60);
      expect(port).toBeGreaterThanOrEqual(lo);
      expect(port).toBeLessThanOrEqual(lo + 60);
    }
    await expect(freePort(lo - 1)).rejects.toMatchObject({ code: 'port_in_use' });
  });

  it('never hands out a port reserved for a server this process starts later', async () => {
    const [lo] = listenPortRange();
    // Every port up to the ceiling reserved (after the ceiling's test above, which draws below lo + 60): none is left to draw.
    for (let p = lo; p <= lo + 19; p++) reservePort(p);
    await expect(freePort(lo + 19)).rejects.toMatchObject({ code: 'port_in_use' });
  });

  it('skips a port that is already bound', async () => {
    const held = net.createServer();
    const port = await freePort();
    await new Promise<void>((r) => held.listen(port, '127.0.0.1', () => r()));
    try {
      for (let i = 0; i < 30; i++) expect(await freePort()).not.toBe(port);
    } finally {
      await new Promise((r) => held.close(r));
    }
  });
});

describe("the stack's start-up errors", () => {
  it('a port already in use stops the command with one coded line and exit 2', async () => {
    const held = net.createServer();
    const port = await freePort();
    await new Promise<void>((r) => held.listen(port, '127.0.0.1', () => r()));
    try {
      const err = await assertPortFree(port, 'Temporal frontend').then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(describeError(err)).toEqual({
        lines: [`error [port_in_use]: port ${port} (Temporal frontend) is already in use on 127.0.0.1: stop what holds it or set another port`],
        exitCode: EXIT.usage,
      });
    } finally {
      await new Promise((r) => held.close(r));
    }
  });

  it('a DATABASE_URL nothing answers on stops the command with one coded line, the password masked, and exit 2', async () => {
    const port = await freePort();
    const err = await assertReachable(`postgres://me:s3cret@127.0.0.1:${port}/x`).then(
      () => undefined,
      (e: unknown) => e,
    );
    const { lines, exitCode } = describeError(err);
    expect(exitCode).toBe(EXIT.usage);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(new RegExp(`^error \\[database_unreachable\\]: DATABASE_URL postgres://me:\\*+@127\\.0\\.0\\.1:${port}/x is not reachable: `));
    expect(lines[0]).not.toContain('s3cret');
  });
});
