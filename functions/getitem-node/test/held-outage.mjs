// heldOutage opens outage.mjs's endpoint for how, holding the stall's server and connections in a
// list of the test's own, which t.after closes: the process's own list would keep them for good.

import net from "node:net";

import { outageEndpoint } from "../outage.mjs";

/** heldOutage resolves to { url, held }: the endpoint's URL and what it holds. */
export async function heldOutage(t, how) {
  const held = [];
  const url = await outageEndpoint(how, held);
  t.after(() => {
    for (const h of held) {
      if (h instanceof net.Server) {
        h.close();
      } else {
        h.destroy();
      }
    }
  });
  return { url, held };
}
