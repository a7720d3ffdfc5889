/**
 * Bounds of response fields the spec leaves unbounded (not exported from the package root: a
 * later version may change them, and the OpenAPI document states them as descriptions, not limits).
 */

/** Most items of `key_exposure`: a vendor may list thousands of categories. */
export const MAX_KEY_EXPOSURES = 10;
