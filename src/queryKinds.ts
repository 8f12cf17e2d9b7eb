/**
 * The kinds of query, named once for the API, the broad phases and the shaders that serve them.
 */

/** The shape of a box query's boxes: axis-aligned (min, max) or oriented (centre, half extents, rotation). */
export type BoxKind = 'aabb' | 'obb';

/**
 * What a cast kernel writes: each cast's nearest hit; or, for all hits, first each cast's hit
 * count, then (after the scan of the counts) its hits at its offset.
 */
export type CastMode = 'nearest' | 'count' | 'write';
