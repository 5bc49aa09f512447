// The service refuses a runtime uWebSockets.js has no binary for, naming the ones it has.
import t from 'tap';
import { checkUwsRuntime } from '../../src/http/uws-runtime.js';

t.test('this runtime has its binary', async (t) => {
  t.doesNotThrow(() => checkUwsRuntime({}, process.versions.modules));
});

t.test('a Node major without a binary is refused, naming the supported ones', async (t) => {
  for (const abi of ['127', '137', '999', '0']) {
    t.throws(
      () => checkUwsRuntime({}, abi),
      { message: new RegExp(`no native binary .*ABI ${abi}.*supported runtime: Node 16, Node 18, Node 20\\.$`) },
      `ABI ${abi}`,
    );
  }
});

t.test('the JavaScript fallback, forced by UWS_USE_FALLBACK, is refused', async (t) => {
  for (const v of ['1', 'true', 'TRUE', 'True']) t.throws(() => checkUwsRuntime({ UWS_USE_FALLBACK: v }), { message: /UWS_USE_FALLBACK is set/ }, v);
  for (const v of ['0', 'false', '']) t.doesNotThrow(() => checkUwsRuntime({ UWS_USE_FALLBACK: v }), `${JSON.stringify(v)} is not set`);
});
