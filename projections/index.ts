import { accessProjection } from './access.js';
import { adminAccessProjection } from './adminAccess.js';
import { adminCatalogueProjection } from './adminCatalogue.js';
import { agentProfilesProjection } from './agentProfiles.js';
import { catalogMetadataProjection } from './catalogMetadata.js';
import { changeFeedProjection } from './changeFeed.js';
import { communitiesProjection } from './communities.js';
import { currencyRatesProjection } from './currencyRates.js';
import { developersProjection } from './developers.js';
import { editorsProjection } from './editors.js';
import { mediaAddressesProjection } from './mediaAddresses.js';
import type { Projection } from '../src/projectionEngine/projection.js';
import { projectResourcesProjection } from './projectResources.js';
import { projectsProjection } from './projects.js';
import { statesProjection } from './states.js';
import { subCommunitiesProjection } from './subCommunities.js';
import { webhooksProjection } from './webhooks.js';

export const allProjections: readonly Projection[] = [
  projectsProjection,
  projectResourcesProjection,
  changeFeedProjection,
  developersProjection,
  communitiesProjection,
  subCommunitiesProjection,
  statesProjection,
  catalogMetadataProjection,
  accessProjection,
  mediaAddressesProjection,
  agentProfilesProjection,
  webhooksProjection,
  currencyRatesProjection,
  adminCatalogueProjection,
  adminAccessProjection,
  editorsProjection,
];

export const projectionNames: readonly string[] = allProjections.map((projection) => projection.name);

export function projectionByName(name: string): Projection | undefined {
  return allProjections.find((projection) => projection.name === name);
}
