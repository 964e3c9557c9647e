import { CHAOS_RUNS, chaosSuite } from './support/chaos';

// Chaos, second half (support/chaos.ts): the same seeded run set, the other runs, on the other core.
chaosSuite({ from: Math.ceil(CHAOS_RUNS / 2), to: CHAOS_RUNS });
