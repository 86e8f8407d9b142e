/**
 * The environments an API key is issued for. A leaf of the import graph: the limits (src/limits) and the
 * access rules (src/access) both speak of it, and the access rules in turn use the limits.
 */
export const KEY_ENVIRONMENTS = ['live', 'test'] as const;
export type KeyEnvironment = (typeof KEY_ENVIRONMENTS)[number];
