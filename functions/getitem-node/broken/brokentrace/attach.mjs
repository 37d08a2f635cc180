// attach, in the deliberately broken build brokentrace, leaves the tracer off the SDK's call:
// the function then reports phases of no connection at all, which the T6 claim test must catch
// (experiments/coldstart's sensitivity test), as functions/getitem's -tags brokentrace does.

/** attach runs call untraced; tracer only times the call as a whole. */
export function attach(tracer, call) {
  return call();
}
