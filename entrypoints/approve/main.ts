import { browser } from 'wxt/browser';
import { mountApprovalWindow } from '../../src/extension/ui/approval-window-page';

mountApprovalWindow(document, browser);
