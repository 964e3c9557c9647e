import type { Translate } from './i18n';

/** From this close to expiry the countdown turns to a warning, announced once (docs/ui.md, "Outcomes"). */
export const EXPIRY_WARNING_MS = 30_000;

/**
 * "4 min 05 s": the countdown to a revision's expires_at (spec section 3 "Expiry"), with the
 * units from the page's messages. Whole seconds, rounded down: it never promises a second the
 * queue will not give.
 */
export function formatRemaining(ms: number, t: Translate): string {
  const s = ms <= 0 ? 0 : Math.floor(ms / 1000);
  const d = Math.floor(s / 86400);
  const h = Math.floor((s % 86400) / 3600);
  const m = Math.floor((s % 3600) / 60);
  const sec = s % 60;
  const two = (n: number) => String(n).padStart(2, '0');
  if (d > 0) return t('remainingDays', [String(d), String(h)]);
  if (h > 0) return t('remainingHours', [String(h), two(m)]);
  if (m > 0) return t('remainingMinutes', [String(m), two(sec)]);
  return t('remainingSeconds', String(sec));
}
