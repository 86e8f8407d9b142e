import { agentProfileQueryRoutes } from './agentProfiles.js';
import { pdfTemplateQueryRoutes } from './pdfTemplates.js';
import { projectQueryRoutes } from './projects.js';
import { projectResourcesBatchRoutes, projectSubResourceRoutes } from './projectResources.js';
import type { QueryRoute } from './queryRoute.js';
import { referenceDataQueryRoutes } from './referenceData.js';

/**
 * Every authenticated /v1 read operation: the router serves exactly these and /v1/openapi.yaml describes
 * them. Fixed paths (`/projects/changes`, `/projects/resources`) come before `/projects/:project`.
 */
export const queryRoutes: readonly QueryRoute[] = [
  ...projectResourcesBatchRoutes,
  ...projectQueryRoutes,
  ...projectSubResourceRoutes,
  ...referenceDataQueryRoutes,
  ...agentProfileQueryRoutes,
  ...pdfTemplateQueryRoutes,
];
