import type { AmlProvider } from './signals.js';

/**
 * Stands in when no AML vendor is configured: every applicable check reports AML as unavailable
 * (`AML_UNAVAILABLE`), never low. Every asset counts as covered so that the reason names the real
 * gap (no vendor) rather than an asset the missing vendor supposedly does not cover.
 */
export function createNotConfiguredAmlProvider(): AmlProvider {
  return {
    supportsAsset: () => true,
    assessAddress: () => Promise.resolve({ status: 'unavailable', reason: 'AML vendor not configured' }),
  };
}
