import { capValue } from '../schemas/bounded-output';
import { type FileValidationResult, validateRecord } from '../schemas/validate-file';
import type { ValidateOptions } from '../schemas/validate';
import { PayloadFileSource } from './payload-file';

/**
 * `kraken-migrate validate` on a payload file reads it as `run start --payloads` does: account by
 * account (ascending external account number), through the same source, so the two agree on every
 * account: a line that is not JSON, not an object or too large, a number held twice, a payload
 * nested too deep or naming another supplier (`importSupplier`) fails here as it fails there.
 * Documents are not read (the run's documents step checks them).
 */
export async function* validatePayloadFile(
  file: string,
  opts: ValidateOptions & { pageSize?: number; limits?: ConstructorParameters<typeof PayloadFileSource>[1] } = {},
): AsyncGenerator<FileValidationResult> {
  const source = new PayloadFileSource(file, opts.limits);
  try {
    let after: string | undefined;
    let index = 0;
    for (;;) {
      const page = await source.listAccountNumbers({ after, limit: opts.pageSize ?? 500 });
      if (page.length === 0) return;
      for (const key of page) {
        const read = await source.getPayload(key);
        if (!read) continue;
        if (!read.ok) {
          yield { index: index++, externalAccountNumber: capValue(key), errors: [{ code: read.code, attr: read.attr ?? '', detail: read.detail }] };
          continue;
        }
        const result = validateRecord(read.payload, index++, opts);
        yield { ...result, externalAccountNumber: result.externalAccountNumber ?? capValue(key) };
      }
      after = page[page.length - 1];
    }
  } finally {
    await source.close();
  }
}
