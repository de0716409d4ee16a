import fs from 'node:fs';

/**
 * A file given as input that cannot be read as one (not a regular file, over a bound): an
 * operational error with a stable code, which the CLI reports as one line with its own exit code
 * (distinct from a validation failure, which is about the records, not the file).
 */
export class InputFileError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'InputFileError';
  }
}

/**
 * Refuses anything but a regular file (symlinks followed) before it is opened: a FIFO would block
 * the open for ever, a device (`/dev/zero`) never ends, a directory is no file.
 */
export async function assertRegularFile(file: string): Promise<fs.Stats> {
  let stat: fs.Stats;
  try {
    stat = await fs.promises.stat(file);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') throw new InputFileError('file_not_found', `${file}: no such file`);
    if (code === 'EACCES') throw new InputFileError('file_not_readable', `${file}: permission denied`);
    throw new InputFileError('file_unreadable', `${file}: cannot be read (${code ?? 'unknown error'})`);
  }
  if (!stat.isFile()) {
    const kind = stat.isFIFO()
      ? 'a FIFO'
      : stat.isDirectory()
        ? 'a directory'
        : stat.isSocket()
          ? 'a socket'
          : stat.isCharacterDevice() || stat.isBlockDevice()
            ? 'a device'
            : 'not a regular file';
    throw new InputFileError('not_a_regular_file', `${file} is ${kind}: only a regular file is read`);
  }
  return stat;
}
