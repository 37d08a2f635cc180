// What a failed warm-up does to Init. The broken build brokenwarmup replaces this file
// (broken/brokenwarmup/warmup-policy.mjs).

/** failInitOnWarmupError is false: a failed warm-up is reported and Init goes on (claim T4). */
export const failInitOnWarmupError = false;
