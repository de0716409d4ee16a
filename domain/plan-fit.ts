import { localDay, nextLocalMidnight, type Interval } from './plan-windows';

/**
 * Will a wave fit? How many of its accounts its windows and daily cap admit, at `perSecond` accounts
 * a second (stated or measured; undefined: the windows and cap alone), counted from `from` on, and
 * how many would be left over. Pure: `plan validate` and `plan status` ask it before and during the night.
 */
export interface WaveFit {
  accounts: number;
  admitted: number;
  leftOver: number;
  fits: boolean;
}

export function waveFit(args: {
  accounts: number;
  intervals: Interval[];
  zone: string;
  dailyCap?: number;
  perSecond?: number;
  from: number;
  startedToday?: number;
}): WaveFit {
  const { accounts, intervals, zone, dailyCap, perSecond, from } = args;
  // The cap counts per local day across windows (domain/plan-windows.ts, dispatchGate).
  const usedByDay = new Map<string, number>();
  if (args.startedToday) usedByDay.set(localDay(from, zone), args.startedToday);
  let admitted = 0;
  for (const w of intervals) {
    let t = Math.max(w.start, from);
    // Each piece of the window within one local day: the rate fills it, the day's cap bounds it.
    while (t < w.end && admitted < accounts) {
      const pieceEnd = Math.min(w.end, nextLocalMidnight(t, zone));
      const byRate = perSecond === undefined ? Number.POSITIVE_INFINITY : Math.floor(((pieceEnd - t) / 1000) * perSecond);
      const day = localDay(t, zone);
      const byCap = dailyCap === undefined ? Number.POSITIVE_INFINITY : Math.max(0, dailyCap - (usedByDay.get(day) ?? 0));
      const n = Math.min(byRate, byCap, accounts - admitted);
      usedByDay.set(day, (usedByDay.get(day) ?? 0) + n);
      admitted += n;
      t = pieceEnd;
    }
  }
  const leftOver = accounts - admitted;
  return { accounts, admitted, leftOver, fits: leftOver === 0 };
}
