import assert from 'node:assert/strict';
import { test } from 'node:test';
import { withDefaults } from '../src/defaults.js';

test('settings left undefined keep their defaults (a spread would turn a limit or a cap off)', () => {
  const defaults = { attempts: 3, baseDelayMs: 50, maxDelayMs: 500 };
  assert.deepEqual(withDefaults(defaults, { attempts: undefined, maxDelayMs: 100 }), { ...defaults, maxDelayMs: 100 });
  assert.deepEqual(withDefaults(defaults, undefined), defaults);
  assert.deepEqual(withDefaults(defaults, { attempts: 0 }), { ...defaults, attempts: 0 }, 'a given 0 is a value');
  assert.deepEqual(defaults, { attempts: 3, baseDelayMs: 50, maxDelayMs: 500 }, 'the defaults are not changed');
});
