import * as z from 'zod';
import { browser } from 'wxt/browser';
import { mountWelcome } from '../../src/extension/ui/welcome-page';

z.config({ jitless: true });
mountWelcome(document, browser);
