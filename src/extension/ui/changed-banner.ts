import { inspectText } from '../../summary/text-inspection.ts';
import type { ReviewedView } from '../snapshot';
import type { Translate } from './i18n';
import type { TextElements } from './text-elements';
import { changedFacts, type FactChange } from './facts';

/** Changes named in the banner itself; the rest are one click away, in the banner too. */
export const CHANGES_LISTED = 3;

/** "Price difference $70.00 → $700.00": the label and both values whole, wrapping, never cut. */
function changeItem(el: TextElements, change: FactChange): HTMLElement {
  const item = el('li', undefined, 'change', true);
  item.append(el('span', change.label, 'label'), ' ', el('span', change.before, 'before'), ' \u2192 ', el('span', change.after, 'after'));
  return item;
}

/**
 * A new revision while the person was reading (spec section 3, "New terms"): what moved, in the
 * terms' own values, every change named. The first `CHANGES_LISTED` are listed; "and N more
 * changes" opens the others in place (docs/ui.md, "Changed").
 */
export function changedBanner(el: TextElements, view: ReviewedView, t: Translate): HTMLElement {
  const banner = el('div', undefined, 'changed');
  banner.setAttribute('role', 'status');
  banner.dataset.testid = 'changed';
  const name = inspectText(view.company.name, { singleLine: true }).display;
  const changes = changedFacts(view.review, t);
  banner.append(el('strong', changes.length > 0 ? t('changedBanner', name) : t('changedBannerNoTerms', name)));
  if (changes.length === 0) return banner;
  const listed = el('ul', undefined, 'changes');
  for (const change of changes.slice(0, CHANGES_LISTED)) listed.append(changeItem(el, change));
  banner.append(listed);
  const rest = changes.slice(CHANGES_LISTED);
  if (rest.length > 0) {
    const more = el('details', undefined, 'more-changes');
    more.dataset.testid = 'more-changes';
    const list = el('ul', undefined, 'changes');
    for (const change of rest) list.append(changeItem(el, change));
    more.append(el('summary', t.plural('changesMore', rest.length)), list);
    banner.append(more);
  }
  return banner;
}
