import type { DataConverter } from '@temporalio/common';
import type { Config } from '../config';
import { AesGcmCodec } from './aes-gcm-codec';
import { loadCodecKeys, type LoadCodecKeysOptions } from './keys';

/**
 * Path of the module exporting `failureConverter` (DefaultFailureConverter with
 * encodeCommonAttributes). Temporal only accepts failure converters by path, because the
 * workflow sandbox loads its own copy: pass this to `bundleWorkflowCode({ failureConverterPath })`
 * too when bundling ahead of time.
 */
export const FAILURE_CONVERTER_PATH: string = require.resolve('./failure-converter');

export type CodecConfig = Pick<Config, 'CODEC_KEYS' | 'CODEC_KEY_FILE' | 'KRAKEN_MIGRATE_MODE'>;

/** The dev-key warning must reach someone: every caller passes the logger it has. */
type WithLogger = LoadCodecKeysOptions & { logger: NonNullable<LoadCodecKeysOptions['logger']> };

export function createCodec(cfg: CodecConfig, opts: WithLogger): AesGcmCodec {
  return new AesGcmCodec(loadCodecKeys(cfg, opts));
}

/** The one data converter for every Temporal client and worker in the project. */
export function createDataConverter(cfg: CodecConfig, opts: WithLogger): DataConverter {
  return {
    payloadCodecs: [createCodec(cfg, opts)],
    failureConverterPath: FAILURE_CONVERTER_PATH,
  };
}
