import { holdStopSignals } from '../process/stop-signals';
import { codecAuthMode, getConfig } from '../config';
import { createLogger } from '../logging/logger';
import { createCodec } from './data-converter';
import { createOidcVerifier } from './oidc';
import { createCodecServer } from './server';
import { serveProcessMetrics } from '../metrics/server';

/** Runs the codec server alone: `npx tsx codec/main.ts`. Loopback unless CODEC_HOST and CODEC_AUTH_TOKEN say otherwise (see README). */
async function main(): Promise<void> {
  const cfg = getConfig();
  const logger = createLogger('codec-server', { level: cfg.LOG_LEVEL });
  const codec = createCodec(cfg, { logger });
  const metrics = await serveProcessMetrics(cfg.METRICS_ADDRESS, 'codec');
  const server = createCodecServer({
    metrics: metrics.registry,
    codec,
    ...(codecAuthMode(cfg) === 'oidc'
      ? {
          oidc: createOidcVerifier({
            issuer: cfg.CODEC_OIDC_ISSUER!,
            audience: cfg.CODEC_OIDC_AUDIENCE!,
            jwksUrl: cfg.CODEC_OIDC_JWKS_URL,
            namespaceClaim: cfg.CODEC_OIDC_NAMESPACE_CLAIM,
          }),
        }
      : { authToken: cfg.CODEC_AUTH_TOKEN }),
    uiOrigin: new URL(cfg.TEMPORAL_UI_URL).origin,
    logger,
    allowedHosts: cfg.CODEC_ALLOWED_HOSTS,
  });
  const { url } = await server.listen(cfg.CODEC_PORT, cfg.CODEC_HOST);
  logger.info({ url, keyId: codec.currentKeyId }, `point the UI at it: temporal server start-dev --ui-codec-endpoint ${url}`);

  const stop = (signal: string) => {
    logger.info({ signal }, 'codec server stopping');
    Promise.all([server.close(), metrics.close()]).then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  const stops = holdStopSignals();
  void stops.requested.then(stop);
  stops.onRepeat(() => process.exit(130));
}

main().catch((err: unknown) => {
  const code = err && typeof err === 'object' && 'code' in err ? String(err.code) : 'codec_start_failed';
  process.stderr.write(`codec server failed to start [${code}]: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
