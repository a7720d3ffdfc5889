// @tron-safety/core/sanctions: OFAC list tools for a host that screens against a stored list
// (download, parse, refresh on a schedule) and the list bundled with this release.
export {
  checkMaxAgeDays,
  parseSanctionsList,
  loadSanctionsListFile,
  OFAC_TRON_LIST,
  DEFAULT_SANCTIONS_LIST_MAX_AGE_DAYS,
  MAX_SANCTIONS_LIST_MAX_AGE_DAYS,
} from './risk/sanctions-list.js';
export { OFAC_TRON_AS_OF, OFAC_TRON_PROVENANCE } from './risk/data/ofac-tron.js';
export * from './risk/ofac/download.js';
export * from './risk/ofac/list-in-use.js';
export * from './risk/ofac/refresh.js';
export * from './risk/ofac/sdn-xml.js';
