export * from './enums.js';
export * from './models.js';
export * from './reasons.js';
export { annotate, annotationOf, type JsonSchema } from './schema.js';
export { buildOpenApiDocument, renderOpenApiJson } from './openapi.js';
