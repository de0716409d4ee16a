import { ConfigError } from '../config/config-error';
import { InputFileError } from '../schemas/input-file';
import { SourceAdapterError } from '../source/adapter-error';

/** Exit codes, documented in cli/README.md. */
export const EXIT = {
  ok: 0,
  /** A run ended with accounts not completed, or a file failed validation. */
  failures: 1,
  /** Bad arguments or configuration. */
  usage: 2,
  /** A service (Temporal, Postgres, the sandbox) could not be reached. */
  unreachable: 3,
  /** An input file that cannot be read as one: not a regular file, over a size or line bound, not gzip. */
  operational: 4,
} as const;
export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

/**
 * An error the CLI reports as one line (no stack trace) with a stable code and exit code. The harness
 * throws its own (harness/stack: temporal_cli_missing, port_in_use, …): this file knows none of its codes.
 */
export class CliError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly exitCode: ExitCode = EXIT.usage,
  ) {
    super(message);
    this.name = 'CliError';
  }
}

export const usageError = (code: string, message: string) => new CliError(code, message, EXIT.usage);
export const unreachableError = (code: string, message: string) => new CliError(code, message, EXIT.unreachable);

const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ENOTFOUND', 'ETIMEDOUT', 'EHOSTUNREACH', 'EAI_AGAIN']);

// eslint-disable-next-line no-control-regex -- control characters are what it finds
const oneLine = (s: string) => s.replace(/[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]+/g, ' ').slice(0, 500);

/** Maps any error to the lines to print and the exit code; pure so it can be tested. */
export function describeError(e: unknown): { lines: string[]; exitCode: ExitCode } {
  if (e instanceof ConfigError) return { lines: e.problems.map((p) => `config error: ${p}`), exitCode: EXIT.usage };
  if (e instanceof CliError) return { lines: [`error [${e.code}]: ${e.message}`], exitCode: e.exitCode };
  // One line, whatever the message holds (a file name with a newline or a control character included).
  if (e instanceof InputFileError || e instanceof SourceAdapterError)
    return { lines: [`error [${e.code}]: ${oneLine(e.message)}`], exitCode: EXIT.operational };
  const err = e as { code?: unknown; message?: unknown };
  const code = typeof err?.code === 'string' ? err.code : undefined;
  const message = typeof err?.message === 'string' ? err.message : String(e);
  if (code && NETWORK_CODES.has(code)) return { lines: [`error [${code}]: ${message}`], exitCode: EXIT.unreachable };
  return { lines: [`error: ${message}`], exitCode: EXIT.failures };
}
