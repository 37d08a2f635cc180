// What a failed warm-up does to Init, in the deliberately broken build brokenwarmup.

/** failInitOnWarmupError is true: a failed warm-up fails Init, what claim T4 warns against and
 * what its test must catch. */
export const failInitOnWarmupError = true;
