// attach runs an SDK call with its tracer in the call's async context, so that the agent's
// hooks (trace.mjs) see the SDK's own requests and sockets. The broken build brokentrace
// replaces this file (broken/brokentrace/attach.mjs).

import { calls } from "./trace.mjs";

/** attach runs call, a function starting the SDK call, traced by tracer; it returns what call
 * returns. */
export function attach(tracer, call) {
  return calls.run(tracer, call);
}
