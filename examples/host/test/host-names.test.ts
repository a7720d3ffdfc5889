import assert from 'node:assert/strict';
import { test } from 'node:test';
import { hostRule } from '../src/host-names.js';

// DNS rebinding: which Host names a loopback listener answers (the listeners themselves: ops.test.ts, portal.test.ts).

test('A loopback listener accepts Host names of this machine (any port, any case) and PORTAL_PUBLIC_URL’s host, nothing else', () => {
  const accepts = hostRule('127.0.0.1', 'https://safety.example.com')!;
  for (const host of [
    '127.0.0.1',
    '127.0.0.1:8080',
    '127.1.2.3:1',
    'localhost',
    'LOCALHOST:9090',
    '[::1]',
    '[::1]:8080',
  ]) {
    assert.equal(accepts(host), true, host);
  }
  assert.equal(accepts('safety.example.com'), true, 'a proxy passing the browser’s Host on');
  assert.equal(accepts('Safety.Example.com:443'), true);
  assert.equal(accepts(undefined), true, 'no Host (HTTP/1.0): not a browser');
  const foreign = ['rebind.attacker.example', 'rebind.attacker.example:8080', '127.0.0.1.attacker.example'];
  const malformed = ['localhost@attacker.example', 'attacker.example/127.0.0.1', '[::1', '127.0.0.1:80:80', ''];
  for (const host of [...foreign, ...malformed, 'example.com', 'localhost.attacker.example']) {
    assert.equal(accepts(host), false, host);
  }
  assert.equal(hostRule('::1', null)!('safety.example.com'), false, 'without PORTAL_PUBLIC_URL only this machine');
});

test('A listener on other addresses has no Host rule: the names it is reached by are the network’s', () => {
  assert.equal(hostRule('0.0.0.0', 'https://safety.example.com'), null);
  assert.equal(hostRule('10.0.0.5', null), null);
});
