import type { Config } from '../../config';
import { basicAuthHeader, createAuth, type PlatformAuth } from './auth';
import { createCatalogueApi } from './catalogue';
import { createDataImportApi } from './data-import';
import { createGraphqlApi } from './graphql';
import { createHttp } from './http';
import { createImportProcessesApi } from './import-processes';
import { createPostImportApi } from './post-import';
import { createRegistrationApi } from './registration';
import { createTariffPreflight, type TariffPreflight } from './tariffs';
import type { FetchLike, PlatformLogger } from './transport';

export type PlatformClientConfig = Pick<
  Config,
  | 'PLATFORM_BASE_URL'
  | 'PLATFORM_V2_BASE_URL'
  | 'PLATFORM_GRAPHQL_URL'
  | 'PLATFORM_AUTH_MODE'
  | 'PLATFORM_API_KEY'
  | 'PLATFORM_ORGANIZATION_SECRET_KEY'
  | 'PLATFORM_HTTP_TIMEOUT_MS'
> &
  Partial<Pick<Config, 'PLATFORM_TOKEN_INPUT' | 'PLATFORM_PRESIGNED_KEY' | 'PLATFORM_REFRESH_TOKEN' | 'PLATFORM_REST_AUTH'>>;

export interface PlatformClientDeps {
  auth?: PlatformAuth;
  fetch?: FetchLike;
  logger?: PlatformLogger;
}

/**
 * The one way the pipeline talks to the platform. Base URLs come from configuration only, so the
 * same client serves a real tenant and the sandbox.
 */
export function createPlatformClient(cfg: PlatformClientConfig, deps: PlatformClientDeps = {}) {
  // Resolved at call time (not import time) so tests and instrumentation can replace the global.
  const fetchImpl: FetchLike = deps.fetch ?? ((input, init) => fetch(input, init));
  const auth = deps.auth ?? createAuth(cfg, { fetch: fetchImpl, logger: deps.logger });
  const apiKey = cfg.PLATFORM_API_KEY;
  // Document 1, rule 5: the ordinary REST endpoints also take the API key by HTTP Basic.
  const restAuth: PlatformAuth | undefined =
    cfg.PLATFORM_REST_AUTH === 'basic' && apiKey ? { header: () => Promise.resolve(basicAuthHeader(apiKey)), invalidate: () => {} } : undefined;
  const http = createHttp(cfg, { fetch: fetchImpl, logger: deps.logger, auth, restAuth });
  const catalogue = createCatalogueApi(http, cfg.PLATFORM_BASE_URL);
  // GraphQL takes a Kraken token only: with a data-import key (`token` mode) the key obtains one.
  const graphqlAuth =
    cfg.PLATFORM_AUTH_MODE === 'token' && !deps.auth
      ? createAuth({ ...cfg, PLATFORM_AUTH_MODE: 'jwt', PLATFORM_TOKEN_INPUT: 'APIKey' }, { fetch: fetchImpl, logger: deps.logger })
      : auth;
  return {
    ...createGraphqlApi(cfg, { fetch: fetchImpl, auth: graphqlAuth, logger: deps.logger }),
    ...createDataImportApi(http, cfg.PLATFORM_V2_BASE_URL, deps.logger),
    ...createPostImportApi(http, cfg.PLATFORM_BASE_URL),
    ...createImportProcessesApi(http, cfg.PLATFORM_BASE_URL),
    ...createRegistrationApi(http, cfg.PLATFORM_BASE_URL),
    ...catalogue,
    /** A fresh tariff pre-flight with its own cache (keep one per run per worker). */
    tariffPreflight(): TariffPreflight {
      return createTariffPreflight(catalogue);
    },
  };
}

export type PlatformClient = ReturnType<typeof createPlatformClient>;
