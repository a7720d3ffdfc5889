export { sharedDir, sharedPath } from './shared.js';
