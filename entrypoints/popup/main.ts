import * as z from 'zod';
import { browser } from 'wxt/browser';
import { mountPopup } from '../../src/extension/ui/popup-page';

z.config({ jitless: true });
void mountPopup(document, browser, browser.runtime.getManifest().version);
