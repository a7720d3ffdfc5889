// Writes openapi.json at the repository root from the contract codecs (`npm run openapi`).
import { writeFileSync } from 'node:fs';
import { renderOpenApiJson } from '@tron-safety/core';

const target = new URL('../openapi.json', import.meta.url);
writeFileSync(target, renderOpenApiJson());
console.log(`wrote ${target.pathname}`);
