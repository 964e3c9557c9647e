import { CHAOS_RUNS, chaosSuite } from './support/chaos';

// Chaos, first half (support/chaos.ts): dropped responses, timeouts and 503s between agent and Company.
chaosSuite({ from: 0, to: Math.ceil(CHAOS_RUNS / 2) });
