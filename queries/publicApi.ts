import type { PublicApi } from '../src/http/app.js';
import { healthRouter, type HealthDeps } from './health.js';
import { queryRoutes } from './index.js';
import { apiOpenApiYaml } from './openApi.js';
import { createQueryRouter, type QueryDeps } from './queryRoute.js';

/** The read side of `/v1` as src/http/app.ts mounts it: the health check, the contract, every query route. */
export function createPublicApi(deps: HealthDeps & QueryDeps): PublicApi {
  const { readStore, linkSigner, clock, limits, publicBaseUrl } = deps;
  return {
    health: healthRouter(deps),
    openApiYaml: () => apiOpenApiYaml(queryRoutes),
    queries: createQueryRouter(queryRoutes, { readStore, linkSigner, clock, limits, ...(publicBaseUrl ? { publicBaseUrl } : {}) }),
  };
}
