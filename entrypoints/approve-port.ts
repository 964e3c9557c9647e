import { browser } from 'wxt/browser';
import { openEarlyPort } from '../src/extension/ui/early-port';

// A classic script the approval window runs while its HTML is parsed: the port to the background
// opens before the window's main script has loaded (src/extension/ui/early-port.ts).
export default defineUnlistedScript(() => openEarlyPort(browser, window));
