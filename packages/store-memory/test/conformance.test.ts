import { runStoreConformance } from '@tron-safety/core/testing';
import { createMemoryStores } from '../src/index.js';

runStoreConformance('store-memory', () => ({ stores: createMemoryStores() }));
