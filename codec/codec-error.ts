// Its own module: the ledger's sealed columns (sealed-value.ts) throw it without loading the payload
// codec, whose @temporalio/proto costs a CLI command about 0.6 s to load (docs/throughput.md).
export type CodecErrorCode = 'codec_unknown_key' | 'codec_decrypt_failed';

export class CodecError extends Error {
  constructor(
    readonly code: CodecErrorCode,
    message: string,
    readonly keyId?: string,
  ) {
    super(message);
    this.name = 'CodecError';
  }
}
