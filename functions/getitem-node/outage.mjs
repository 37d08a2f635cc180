// The endpoints CLAIMS_WARMUP_OUTAGE sends the warm-up to instead of DynamoDB, so that claim T4
// can be tried on Lambda, where nobody can take DynamoDB away: both are inside the function's own
// sandbox (loopback), and only the warm-up uses them; the handler's GetItem still goes to
// DynamoDB. functions/getitem's outage.go does the same.

import net from "node:net";

/** The values CLAIMS_WARMUP_OUTAGE takes. */
export const outageRefused = "refused"; // nothing listens: the connection is refused at once
export const outageStalled = "stalled"; // a listener that accepts and never answers: the handshake hangs

/** processHeld keeps a stall's server and what it accepted for the life of the process. */
const processHeld = [];

/** outageEndpoint opens the sandbox's endpoint for how and resolves to its URL: a port bound
 * and closed again (refused), or a server that accepts and holds every connection, never
 * reading or answering (stalled). The stall's server and connections go into held, the
 * process's own list unless a test passes one of its own to close them. */
export async function outageEndpoint(how, held = processHeld) {
  if (how !== outageRefused && how !== outageStalled) {
    throw new Error(`CLAIMS_WARMUP_OUTAGE = ${JSON.stringify(how)}; want "${outageRefused}", "${outageStalled}" or unset`);
  }
  const server = net.createServer((socket) => {
    socket.pause();
    socket.on("error", () => {}); // the warm-up gives up and resets it: nothing to report
    held.push(socket);
  });
  await new Promise((resolve, reject) => {
    server.once("error", (err) => reject(new Error(`CLAIMS_WARMUP_OUTAGE = "${how}": ${err.message}`)));
    server.listen(0, "127.0.0.1", resolve);
  });
  const url = `https://127.0.0.1:${server.address().port}`;
  if (how === outageRefused) {
    await new Promise((resolve) => server.close(resolve));
  } else {
    // Not to keep the process up on its own: the Runtime API loop does that.
    server.unref();
    held.push(server);
  }
  return url;
}
