import { z } from 'zod';
import { browser } from 'wxt/browser';
import { mountApprovalWindow } from '../../src/extension/ui/approval-window-page';

z.config({ jitless: true });
mountApprovalWindow(document, browser);
