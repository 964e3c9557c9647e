import { z } from 'zod';
import { browser } from 'wxt/browser';
import { versionQuery, type VersionAnswer } from '../src/extension/runtime-messages';

// zod's JIT probes with `new Function('')`: the extension CSP forbids it and web-ext lint flags it.
z.config({ jitless: true });

export default defineBackground(() => {
  const startedAt = Date.now();
  browser.runtime.onMessage.addListener((message: unknown) => {
    if (versionQuery.safeParse(message).success) {
      const answer: VersionAnswer = {
        product: 'Countersign',
        version: browser.runtime.getManifest().version,
        bridgeProtocol: 1,
        startedAt,
      };
      return Promise.resolve(answer);
    }
    return undefined;
  });
});
