import { browser } from 'wxt/browser';
import { mountApprovalWindow } from '../src/extension/ui/approval-window-page';

// The approval window's main script, built as one classic script (an unlisted script) and loaded
// with `defer`: a module of the same code, with its chunks, painted the window later (docs/ui.md,
// "Opening fast").
export default defineUnlistedScript(() => mountApprovalWindow(document, browser));
