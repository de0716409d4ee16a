// Apart from config/index.ts so the CLI's error reporting (cli/errors.ts) knows it without loading zod.
export class ConfigError extends Error {
  readonly code = 'config_invalid';
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n  ${problems.join('\n  ')}`);
    this.name = 'ConfigError';
  }
}
