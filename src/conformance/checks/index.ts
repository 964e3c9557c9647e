import type { Check } from '../check';
import { section2 } from './section-2';
import { section3 } from './section-3';
import { section4 } from './section-4';
import { section6 } from './section-6';
import { section7 } from './section-7';

/** Every check of the kit, in the spec's order (docs/conformance.md lists them). */
export const CHECKS: readonly Check[] = [...section2, ...section3, ...section4, ...section6, ...section7];
