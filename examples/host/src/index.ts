export { parseConfig, type ConfigError, type HostConfig } from './config.js';
export { startHost, type RunningHost } from './host.js';
export { openStores, type HostStores } from './stores.js';
export { createHttpServer, listen, stopAccepting, type Framework } from './http-app.js';
export { createLogger, withRequestLog, REDACTED_PATHS, type Handler } from './log.js';
export { withHostRoutes, OPENAPI_PATH, STATUS_PATH } from './routes.js';
export { applySeed, decodeSeed, loadSeedFile, SeedFile, type SeedSummary } from './seed-file.js';
