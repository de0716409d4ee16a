import path from 'node:path';

/** The repository root. Apart from cli/context.ts so command declarations (cli/commands/) can name it without loading the services. */
export const ROOT = path.resolve(__dirname, '..');
