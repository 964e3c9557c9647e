import { browser } from 'wxt/browser';
import { versionAnswer } from '../../src/extension/runtime-messages';

const app = document.getElementById('app')!;
const answer = versionAnswer.parse(await browser.runtime.sendMessage({ type: 'countersign/version' }));
app.textContent = `Countersign ${answer.version}`;
