import assert from 'node:assert/strict';
import { test } from 'node:test';
import { decode } from '@tron-safety/codec';
import { ok } from 'neverthrow';
import {
  createSafetyService,
  type ErrorResponse as CoreErrorResponse,
  type ReasonCode,
  type TransactionCheckResponse,
  type UsageResponse as CoreUsageResponse,
} from '@tron-safety/core';
import { checkBody, instantChain, instantRisk, seedTenant } from '@tron-safety/core/testing';
import { createMemoryStores } from '@tron-safety/store-memory';
import { CheckResponse, ErrorResponse, KNOWN_REASON_CODES, UsageResponse, type KnownReasonCode } from '../src/index.js';

// The client does not depend on the core (an integrator installs undici, io-ts, neverthrow and the
// codec package, not the service). Its types are pinned to the core's contract models here instead: this file fails to
// type-check when the contract gains, loses or retypes a field the client reads, or a reason code.

type Exactly<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const sameFields: Exactly<keyof CheckResponse, keyof TransactionCheckResponse> = true;
const sameUsageFields: Exactly<keyof UsageResponse, keyof CoreUsageResponse> = true;
const sameReasonCodes: Exactly<KnownReasonCode, ReasonCode> = true;
// Every body the service can send is one the client accepts.
const acceptsCheck = (body: TransactionCheckResponse): CheckResponse => body;
const acceptsUsage = (body: CoreUsageResponse): UsageResponse => body;
const acceptsError = (body: CoreErrorResponse): ErrorResponse => body;
void [acceptsCheck, acceptsUsage, acceptsError];

test("the client's codecs decode what the real service answers (check, usage, error)", async () => {
  assert.ok(sameFields && sameUsageFields && sameReasonCodes);
  assert.equal(KNOWN_REASON_CODES.length, new Set(KNOWN_REASON_CODES).size);
  const service = createSafetyService(createMemoryStores(), { chain: instantChain(), risk: instantRisk() });
  const { apiKey } = await seedTenant(service);
  const check = await service.check({ apiKey, request: checkBody('11'.repeat(32)) });
  const usage = await service.usage({ apiKey });
  const refused = await service.usage({ apiKey: 'tsk_live_nope' });
  assert.deepEqual(
    decode(CheckResponse, check.body).map(() => 'decoded'),
    ok('decoded'),
  );
  assert.deepEqual(
    decode(UsageResponse, usage.body).map(() => 'decoded'),
    ok('decoded'),
  );
  assert.deepEqual(
    decode(ErrorResponse, refused.body).map(() => 'decoded'),
    ok('decoded'),
  );
  await service.close({ timeoutMs: 10 });
});
