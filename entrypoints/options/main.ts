import * as z from 'zod';
import { browser } from 'wxt/browser';
import { mountOptions } from '../../src/extension/ui/options-page';

z.config({ jitless: true });
mountOptions(document, browser);
