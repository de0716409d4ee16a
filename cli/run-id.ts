import crypto from 'node:crypto';

const pad = (n: number) => String(n).padStart(2, '0');

/** `run-YYYYMMDD-HHMMSS-abcd` (UTC): sortable, readable in the UI, unique enough for people. */
export function newRunId(now: Date = new Date(), random: () => string = () => crypto.randomBytes(2).toString('hex')): string {
  const d = `${now.getUTCFullYear()}${pad(now.getUTCMonth() + 1)}${pad(now.getUTCDate())}`;
  const t = `${pad(now.getUTCHours())}${pad(now.getUTCMinutes())}${pad(now.getUTCSeconds())}`;
  return `run-${d}-${t}-${random()}`;
}

/** Run ids end up in workflow ids, search attributes and file names: keep them plain. */
export const RUN_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/;
