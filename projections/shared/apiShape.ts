/** Value shaping shared by the read models: documents are stored the way the /v1 API prints them. */

/** The free-text field `q` searches (see FindOptions.text): lower-cased, blanks between the parts. */
export function searchText(...parts: ReadonlyArray<string | null | undefined>): string {
  return parts
    .filter((part): part is string => typeof part === 'string' && part.length > 0)
    .join(' ')
    .toLowerCase();
}

export interface ApiLocation {
  latitude: number | null;
  longitude: number | null;
}

/** The API always prints both coordinates, null when none are populated. */
export function apiLocation(location: { latitude: number; longitude: number } | null | undefined): ApiLocation {
  return { latitude: location?.latitude ?? null, longitude: location?.longitude ?? null };
}

/** A number with optional thousands separators (1,234,567.8) or a plain one (1234.5). */
const NUMBER_IN_TEXT = /\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?/g;
const groupedFormat = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0, useGrouping: true });

/**
 * Areas are rounded to whole numbers and keep their type: a number is rounded; in a text every number is
 * rounded in place and keeps its thousands separators if it had them ("1,234.6 sq ft" -> "1,235 sq ft",
 * "850.4 - 1200.5" -> "850 - 1201").
 */
export function roundArea<Area extends number | string | null>(area: Area): Area {
  if (typeof area === 'number') return Math.round(area) as Area;
  if (typeof area !== 'string') return area;
  return area.replace(NUMBER_IN_TEXT, (match) => {
    const rounded = Math.round(Number(match.replaceAll(',', '')));
    return match.includes(',') ? groupedFormat.format(rounded) : String(rounded);
  }) as Area;
}
