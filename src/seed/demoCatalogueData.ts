/**
 * The fixed reference data of the demo catalogue and the word lists its projects are made from. Names of
 * places are real UAE places; developers and projects are invented.
 */

import { ENTITLEMENTS, SCOPES, type DetailField, type Entitlement, type Scope } from '../access/accessContext.js';
import type { PlanLimits } from '../limits/planLimits.js';

export interface DemoState {
  name: string;
  slug: string;
  communities: DemoCommunity[];
}

export interface DemoCommunity {
  name: string;
  latitude: number;
  longitude: number;
  subCommunities: string[];
}

export interface DemoUnitType {
  name: string;
  kind: 'studio' | 'bedrooms' | 'bedrooms_or_more' | 'other';
  bedrooms: number | null;
}

const community = (name: string, latitude: number, longitude: number, subCommunities: string[]): DemoCommunity => ({
  name,
  latitude,
  longitude,
  subCommunities,
});

export const demoStates: DemoState[] = [
  {
    name: 'Dubai',
    slug: 'dubai',
    communities: [
      community('Dubai Marina', 25.0805, 55.1403, ['Marina Promenade', 'Marina Gate', 'Marina Wharf']),
      community('Downtown Dubai', 25.1972, 55.2744, ['Opera District', 'Burj Khalifa District', 'Old Town']),
      community('Business Bay', 25.185, 55.265, ['Bay Square', 'Marasi Drive', 'Executive Towers']),
      community('Jumeirah Village Circle', 25.06, 55.209, ['District 10', 'District 12', 'District 15']),
      community('Dubai Hills Estate', 25.113, 55.245, ['Park Heights', 'Golf Place', 'Sidra Villas', 'Maple']),
      community('Palm Jumeirah', 25.1124, 55.139, ['Frond Villas', 'Shoreline Apartments', 'Golden Mile']),
      community('Arabian Ranches', 25.055, 55.27, ['Saheel', 'Alvorada', 'Mirador']),
      community('Dubai Creek Harbour', 25.201, 55.345, ['Creek Beach', 'Creek Island', 'Harbour Views']),
      community('Jumeirah Lake Towers', 25.069, 55.141, ['Cluster A', 'Cluster J', 'Cluster X']),
      community('Mohammed Bin Rashid City', 25.165, 55.31, ['District One', 'Hartland', 'Meydan Avenue']),
      community('Dubai South', 24.89, 55.15, ['The Pulse', 'Golf Links', 'Residential District']),
      community('Damac Hills', 25.025, 55.25, ['Akoya', 'Golf Town', 'Carson']),
      community('Al Furjan', 25.024, 55.149, ['Quortaj', 'Dubai Style', 'Murooj']),
      community('Jumeirah Beach Residence', 25.078, 55.134, ['Sadaf', 'Bahar', 'Rimal']),
      community('Dubai Silicon Oasis', 25.12, 55.38, ['Cedre Villas', 'Silicon Gates']),
      community('Town Square', 25.013, 55.288, ['Hayat Townhouses', 'Zahra', 'Safi']),
      community('Dubai Harbour', 25.096, 55.142, ['Beach Vista', 'Sunrise Bay']),
      community('Al Barsha', 25.11, 55.2, ['Al Barsha South', 'Barsha Heights']),
      community('Jumeirah Golf Estates', 25.021, 55.205, ['Fire Course', 'Earth Course']),
      community('Dubai Islands', 25.3, 55.3, ['Island A', 'Island B']),
    ],
  },
  {
    name: 'Abu Dhabi',
    slug: 'abu-dhabi',
    communities: [
      community('Saadiyat Island', 24.544, 54.434, ['Saadiyat Beach', 'Cultural District', 'Saadiyat Grove']),
      community('Yas Island', 24.488, 54.607, ['Yas Acres', 'Yas Bay', 'Waters Edge']),
      community('Al Reem Island', 24.499, 54.407, ['Shams Abu Dhabi', 'Najmat', 'City of Lights']),
      community('Al Raha Beach', 24.448, 54.601, ['Al Bandar', 'Al Muneera', 'Al Zeina']),
      community('Masdar City', 24.426, 54.615, ['Masdar Park', 'Oasis Residences']),
      community('Al Maryah Island', 24.5, 54.39, ['Maryah Plaza', 'Maryah Vista']),
      community('Khalifa City', 24.42, 54.58, ['Khalifa City A', 'Khalifa City B']),
      community('Al Ghadeer', 24.835, 55.01, ['Phase 1', 'Phase 2']),
      community('Jubail Island', 24.55, 54.47, ['Jubail Terraces', 'Mangrove Village']),
    ],
  },
  {
    name: 'Sharjah',
    slug: 'sharjah',
    communities: [
      community('Aljada', 25.32, 55.47, ['Nest', 'East Boulevard', 'Naseej District']),
      community('Al Majaz', 25.328, 55.385, ['Majaz 1', 'Majaz 2']),
      community('Al Khan', 25.33, 55.37, ['Al Khan Lagoon', 'Al Khan Corniche']),
      community('Tilal City', 25.28, 55.6, ['Tilal Gardens', 'Tilal Villas']),
      community('Sharjah Waterfront City', 25.57, 55.55, ['Al Dhaid Island', 'Marina Island']),
      community('Muwaileh', 25.295, 55.46, ['Muwaileh Commercial', 'University City']),
    ],
  },
  {
    name: 'Ras Al Khaimah',
    slug: 'ras-al-khaimah',
    communities: [
      community('Al Marjan Island', 25.67, 55.74, ['Breeze Island', 'Dream Island', 'Treasure Island']),
      community('Mina Al Arab', 25.7, 55.8, ['Hayat Island', 'The Lagoons']),
      community('Al Hamra Village', 25.69, 55.78, ['Golf Apartments', 'Marina Apartments']),
    ],
  },
  {
    name: 'Ajman',
    slug: 'ajman',
    communities: [
      community('Al Zorah', 25.445, 55.506, ['Golf Villas', 'Mangrove Residences']),
      community('Ajman Downtown', 25.41, 55.45, ['Horizon Towers', 'Al Rashidiya']),
      community('Emirates City', 25.47, 55.56, ['Lake Tower District', 'Phase 2']),
    ],
  },
  {
    name: 'Umm Al Quwain',
    slug: 'umm-al-quwain',
    communities: [
      community('Siniya Island', 25.59, 55.62, ['Siniya Beach']),
      community('UAQ Marina', 25.55, 55.56, ['Marina Residences', 'Marina Villas']),
    ],
  },
  {
    name: 'Fujairah',
    slug: 'fujairah',
    communities: [
      community('Fujairah Beach', 25.34, 56.36, ['Al Aqah Shores', 'Dibba Bay']),
      community('Fujairah City Centre', 25.12, 56.33, ['Corniche District']),
    ],
  },
];

export const demoDeveloperNames: string[] = [
  'Azure Crest Developments',
  'Falcon Ridge Properties',
  'Desert Rose Real Estate',
  'Golden Sands Development',
  'Pearl Coast Properties',
  'Meridian Gulf Holdings',
  'Oasis Skyline Developers',
  'Crescent Bay Properties',
  'Al Noor Estates',
  'Emirates Crown Developments',
  'Gulf Horizon Real Estate',
  'Sapphire Shores Properties',
  'Palm Arc Developments',
  'Dune View Holdings',
  'Marina Gate Developers',
  'Arabian Sun Properties',
  'Blue Lagoon Real Estate',
  'Citadel Urban Developments',
  'Zahra Living',
  'Noor Al Bahr Properties',
  'Qamar Developments',
  'Sidra Heights Real Estate',
  'Al Waha Holdings',
  'Saffron Coast Developers',
  'Ivory Tower Properties',
  'Majlis Development Group',
  'Khaleej Urban',
  'Silver Falcon Estates',
  'Layan Properties',
  'Rimal Developments',
  'Nakhla Real Estate',
  'Bayt Al Khair Developments',
  'Amwaj Properties',
  'Sahara Crest Holdings',
  'Aurora Bay Developers',
  'Mirage Living',
  'Lumina Estates',
  'Vantage Point Developments',
  'Cedar Gate Properties',
  'Horizon Key Real Estate',
  'Seven Emirates Developments',
  'Coral Reef Properties',
  'Gulf Jewel Holdings',
  'Harbourline Developers',
  'Al Fanar Real Estate',
  'Tala Properties',
  'Nujoum Developments',
  'Meraki Urban Living',
  'Sky Garden Developers',
  'Reem Crest Properties',
  'Vista Mare Developments',
  'Boulevard Crown Estates',
  'Altair Properties',
  'Green Oasis Developers',
  'Serenity Shores Real Estate',
  'Prime Gulf Developments',
  'Orchid Bay Holdings',
  'Summit Arc Properties',
  'Yasmin Developments',
  'Al Manara Estates',
];

/** In catalog-metadata order. */
export const demoUnitTypes: DemoUnitType[] = [
  { name: 'Studio', kind: 'studio', bedrooms: 0 },
  { name: '1 Bedroom', kind: 'bedrooms', bedrooms: 1 },
  { name: '2 Bedrooms', kind: 'bedrooms', bedrooms: 2 },
  { name: '3 Bedrooms', kind: 'bedrooms', bedrooms: 3 },
  { name: '4 Bedrooms', kind: 'bedrooms', bedrooms: 4 },
  { name: '5 Bedrooms', kind: 'bedrooms', bedrooms: 5 },
  { name: '6+ Bedrooms', kind: 'bedrooms_or_more', bedrooms: 6 },
  { name: 'Office', kind: 'other', bedrooms: null },
  { name: 'Retail', kind: 'other', bedrooms: null },
  { name: 'Duplex', kind: 'other', bedrooms: null },
];

/**
 * Unit-type mixes a project can offer, by unit type name. The empty mix and the commercial-only mixes
 * are projects without residential bedroom data.
 */
export const demoUnitMixes: string[][] = [
  ['Studio', '1 Bedroom', '2 Bedrooms'],
  ['Studio', '1 Bedroom'],
  ['1 Bedroom', '2 Bedrooms', '3 Bedrooms'],
  ['2 Bedrooms', '3 Bedrooms', 'Duplex'],
  ['3 Bedrooms', '4 Bedrooms', '5 Bedrooms'],
  ['4 Bedrooms', '5 Bedrooms', '6+ Bedrooms'],
  ['6+ Bedrooms'],
  ['Studio', '1 Bedroom', 'Retail'],
  ['1 Bedroom', '2 Bedrooms', '3 Bedrooms', '4 Bedrooms'],
  ['Office', 'Retail'],
  ['Office'],
  [],
];

export const projectNamePrefixes: string[] = [
  'Azure',
  'Marina',
  'Palm',
  'Vista',
  'Skyline',
  'Oasis',
  'Harbour',
  'Serene',
  'Elara',
  'Celeste',
  'Laguna',
  'Orchid',
  'Jasmine',
  'Sienna',
  'Emerald',
  'Coral',
  'Sapphire',
  'Aurora',
  'Horizon',
  'Crescent',
  'Dune',
  'Sahara',
  'Zenith',
  'Sunset',
  'Seaside',
  'Majestic',
  'Royal',
  'Grand',
  'Golden',
  'Pearl',
  'Riviera',
  'Bayview',
  'Parkside',
  'Greenfield',
  'Lakeside',
  'Creekside',
  'Cedar',
  'Willow',
  'Maple',
  'Ivory',
  'Amara',
  'Layla',
  'Noor',
  'Reem',
  'Yasmin',
  'Rimal',
  'Amwaj',
  'Nakheel',
  'Bahar',
  'Sama',
];

export const projectNameSuffixes: string[] = [
  'Residences',
  'Heights',
  'Tower',
  'Views',
  'Gardens',
  'Villas',
  'Park',
  'Bay',
  'Lofts',
  'Court',
  'Terraces',
  'Boulevard',
  'Square',
  'Estates',
  'Place',
  'Point',
  'Walk',
  'Central',
  'Grove',
  'Business Centre',
];

export const amenityCatalogue: Array<{ name: string; icon: string | null }> = [
  { name: 'Swimming pool', icon: 'pool' },
  { name: 'Gymnasium', icon: 'gym' },
  { name: "Children's play area", icon: 'playground' },
  { name: 'Covered parking', icon: 'parking' },
  { name: '24/7 security', icon: 'security' },
  { name: 'Jogging track', icon: 'running' },
  { name: 'Landscaped gardens', icon: 'garden' },
  { name: 'Spa and sauna', icon: 'spa' },
  { name: 'BBQ area', icon: null },
  { name: 'Retail promenade', icon: 'shopping' },
  { name: 'Concierge', icon: 'concierge' },
  { name: 'Private beach', icon: 'beach' },
  { name: 'Padel court', icon: null },
  { name: 'Co-working lounge', icon: 'desk' },
];

export const nearbyCatalogue: Array<{ name: string; category: string }> = [
  { name: 'International airport', category: 'airport' },
  { name: 'Marina and yacht club', category: 'leisure' },
  { name: 'Metro station', category: 'transport' },
  { name: 'Tram stop', category: 'transport' },
  { name: 'International school', category: 'school' },
  { name: 'Nursery', category: 'school' },
  { name: 'Community hospital', category: 'healthcare' },
  { name: 'Pharmacy', category: 'healthcare' },
  { name: 'Shopping mall', category: 'shopping' },
  { name: 'Supermarket', category: 'shopping' },
  { name: 'Public beach', category: 'leisure' },
  { name: 'Golf course', category: 'leisure' },
  { name: 'Mosque', category: 'community' },
];

export const paymentMethodCatalogue: Array<{ name: string; description: string | null }> = [
  { name: 'Bank transfer', description: 'Transfer to the project escrow account.' },
  { name: 'Cheque', description: 'Post-dated cheques for each instalment.' },
  { name: 'Credit card', description: 'Booking amount only; a 2% card fee applies.' },
  { name: 'Mortgage', description: 'Up to 80% financing through partner banks for ready units.' },
  { name: 'Cryptocurrency', description: null },
];

export const faqCatalogue: Array<{ question: string; answer: string }> = [
  { question: 'Is the project freehold?', answer: 'Yes, the project is open to buyers of all nationalities on a freehold basis.' },
  { question: 'What is the booking amount?', answer: 'The booking amount is 10% of the unit price plus the 4% land department fee.' },
  { question: 'Is the project registered in escrow?', answer: 'Yes, all payments go to a regulated escrow account.' },
  { question: 'Can I rent out my unit?', answer: 'Yes, short- and long-term letting is allowed after handover.' },
  { question: 'Are service charges fixed?', answer: 'Service charges are set by the owners association and reviewed yearly.' },
  {
    question: 'Does the unit qualify for a golden visa?',
    answer: 'Units priced at AED 2 million or more may qualify; check the current rules.',
  },
];

export interface DemoPlan {
  key: string;
  name: string;
  scopes: Scope[];
  entitlements: Entitlement[];
  detail_fields: DetailField[] | null;
  limits: PlanLimits | null;
}

/**
 * Starter reads the catalogue with images and the descriptive detail fields only; professional adds
 * everything but webhooks; enterprise has it all.
 */
export const demoPlans: DemoPlan[] = [
  {
    key: 'starter',
    name: 'Starter',
    scopes: [
      'projects:read',
      'projects:sync',
      'developers:read',
      'communities:read',
      'states:read',
      'subcommunities:read',
      'catalog:read',
      'paymentplans:read',
      'amenities:read',
      'nearby:read',
      'paymentmethods:read',
      'faqs:read',
      'media:read',
    ],
    entitlements: ['images'],
    detail_fields: ['overview', 'description', 'project_types', 'map_embed_html'],
    limits: null,
  },
  {
    key: 'professional',
    name: 'Professional',
    scopes: SCOPES.filter((scope) => scope !== 'webhooks:manage'),
    entitlements: ENTITLEMENTS.filter((entitlement) => entitlement !== 'webhooks'),
    detail_fields: null,
    limits: {
      burst: { requests: 50, window_ms: 2_000 },
      per_minute: 300,
      daily: 50_000,
      monthly: 1_000_000,
      test_daily: 1_000,
      overage: { price_per_request: '0.002', currency: 'AED' },
    },
  },
  {
    key: 'enterprise',
    name: 'Enterprise',
    scopes: [...SCOPES],
    entitlements: [...ENTITLEMENTS],
    detail_fields: null,
    limits: {
      burst: { requests: 200, window_ms: 2_000 },
      per_minute: 1_200,
      daily: null,
      monthly: null,
      test_daily: 10_000,
      overage: null,
    },
  },
];

/**
 * Rates of the currencies without a dollar peg, so demo brochures can print prices in them: units one AED
 * buys, about the market in 2025 (USD and SAR need none: their pegs stand).
 */
export const demoCurrencyRates: ReadonlyArray<{ code: 'EUR' | 'GBP' | 'INR'; per_aed: number }> = [
  { code: 'EUR', per_aed: 0.2515 },
  { code: 'GBP', per_aed: 0.2145 },
  { code: 'INR', per_aed: 22.74 },
];
