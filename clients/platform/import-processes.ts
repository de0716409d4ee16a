import { Readable } from 'node:stream';
import { InputFileError } from '../../schemas/input-file';
import { readJsonArrayRecords } from '../../schemas/json-array-stream';
import {
  accountTransferStatusSchema,
  importProcessSchema,
  type AccountTransferStatus,
  type ImportProcess,
  type ImportProcessList,
} from '../../schemas/import-process';
import { PLATFORM_ERROR_CODES, PlatformFinalError } from './errors';
import type { HttpRequest, PlatformHttp } from './http';
import { joinUrl, pathOf, segment } from './url';

const LIST_PATHS: Record<ImportProcessList, string> = {
  all: 'data-import/all-account-import-processes',
  imported: 'data-import/imported-account-import-processes',
  pending: 'data-import/pending-account-import-processes',
};

/** One element of a list is at most this large (an `ImportProcess` is three short fields). */
const MAX_ELEMENT_BYTES = 64 * 1024;

const isSpace = (b: number) => b === 0x20 || b === 0x0a || b === 0x0d || b === 0x09;

/** The body's chunks, after checking that the document is an array (the reader below assumes one). */
async function* arrayChunks(body: AsyncIterable<Uint8Array>, notAList: () => Error): AsyncGenerator<Buffer> {
  let looked = false;
  for await (const piece of body) {
    const chunk = Buffer.from(piece.buffer, piece.byteOffset, piece.byteLength);
    if (!looked) {
      let i = 0;
      while (i < chunk.length && isSpace(chunk[i])) i++;
      if (i === chunk.length) continue;
      if (chunk[i] !== 0x5b) throw notAList();
      looked = true;
    }
    yield chunk;
  }
  if (!looked) throw notAList();
}

/**
 * The `query` lists and the transfer status. The lists are one JSON array each, not paginated: they
 * are read element by element as the bytes come (`schemas/json-array-stream.ts`, `@streamparser/json`),
 * so a supplier of a million accounts costs one element of memory here, never the document.
 */
export function createImportProcessesApi(http: PlatformHttp, v1BaseUrl: string) {
  const rejected = (req: HttpRequest, status: number, why: string) =>
    new PlatformFinalError(PLATFORM_ERROR_CODES.rejected, { method: req.method, path: pathOf(req.url), status }, why);

  return {
    /**
     * Every `ImportProcess` of one list, as they stream. A transient failure (network, idle timeout,
     * 429, 5xx) is thrown part-way: the caller reads the list again from its start.
     */
    async *importProcesses(list: ImportProcessList, supplierCode: string): AsyncGenerator<ImportProcess> {
      const req: HttpRequest = { method: 'GET', url: joinUrl(v1BaseUrl, `${LIST_PATHS[list]}/${segment(supplierCode)}/`), authenticated: true };
      const res = await http.requestStream(req);
      if (res.status !== 200) {
        await res.discard();
        throw http.unexpected(req, res);
      }
      const input = Readable.from(arrayChunks(res.body, () => rejected(req, res.status, 'not a JSON array')));
      try {
        for await (const record of readJsonArrayRecords(input, { maxRecordBytes: MAX_ELEMENT_BYTES })) {
          if ('syntaxError' in record) throw rejected(req, res.status, `element ${record.index}: ${record.syntaxError}`);
          let value: unknown;
          try {
            value = JSON.parse(record.bytes.toString('utf8'));
          } catch {
            throw rejected(req, res.status, `element ${record.index}: not valid JSON`);
          }
          const parsed = importProcessSchema.safeParse(value);
          // The issue names the field, never its value (an account number is the tenant's data).
          if (!parsed.success)
            throw rejected(req, res.status, `element ${record.index}: not an ImportProcess (${parsed.error.issues[0].path.join('.') || 'element'})`);
          yield parsed.data;
        }
      } catch (e) {
        // The element reader's size limit is a final answer; the stream's transient failure passes as it is.
        if (e instanceof InputFileError) throw rejected(req, res.status, 'an element over 64 KiB');
        throw e;
      } finally {
        input.destroy();
      }
    },

    /** `GET v1/data-import/account-transfer-status/{supplier}/{external}/`; undefined on 404 (no such import process). */
    async getAccountTransferStatus(supplierCode: string, externalAccountNumber: string): Promise<AccountTransferStatus | undefined> {
      const req: HttpRequest = {
        method: 'GET',
        url: joinUrl(v1BaseUrl, `data-import/account-transfer-status/${segment(supplierCode)}/${segment(externalAccountNumber)}/`),
        authenticated: true,
      };
      const res = await http.request(req);
      if (res.status === 404) return undefined;
      if (res.status !== 200) throw http.unexpected(req, res);
      const parsed = accountTransferStatusSchema.safeParse(res.body);
      if (!parsed.success) throw rejected(req, res.status, 'unexpected transfer status body');
      return parsed.data;
    },
  };
}

export type ImportProcessesApi = ReturnType<typeof createImportProcessesApi>;
