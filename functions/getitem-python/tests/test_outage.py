"""outage.py: the refused and stalled endpoints on loopback, started, behaving as documented, and
closed (no socket left open but the stall's listener, which the test stops)."""

import gc
import socket
import ssl
import unittest
import urllib.parse
import warnings

import outage

from . import support


def address(url):
    u = urllib.parse.urlsplit(url)
    return u.hostname, u.port


class OutageEndpointTest(unittest.TestCase):

    def call_leaving_no_socket(self, how):
        """outage_endpoint(how)'s URL or its error's message, checking that the call left no
        socket for the garbage collector to close."""
        url = message = None
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", ResourceWarning)
            try:
                url = outage.outage_endpoint(how)
            except outage.OutageError as e:
                message = str(e)  # the exception, with its frames, is gone after the block
            gc.collect()
        leaks = [str(w.message) for w in caught if issubclass(w.category, ResourceWarning)]
        self.assertEqual(leaks, [], "a socket was left open")
        return url, message

    def test_refused(self):
        url, message = self.call_leaving_no_socket(outage.REFUSED)
        self.assertIsNone(message)
        host, port = address(url)
        self.assertEqual(urllib.parse.urlsplit(url).scheme, "https")
        self.assertEqual(host, "127.0.0.1")
        self.assertGreater(port, 0)
        with self.assertRaises(ConnectionRefusedError):
            socket.create_connection((host, port), timeout=2).close()

    def test_stalled_accepts_holds_and_stops(self):
        with support.capture_stalls(self) as started:
            url = outage.outage_endpoint(outage.STALLED)
        self.assertEqual(len(started), 1)
        thread, listener = started[0]
        self.assertTrue(thread.daemon)
        self.assertTrue(thread.is_alive())
        self.assertEqual(address(url), listener.getsockname())
        # It accepts, and never answers: neither a connection nor a TLS handshake.
        conn = socket.create_connection(address(url), timeout=0.3)
        self.addCleanup(conn.close)
        with self.assertRaises(socket.timeout):
            conn.recv(1)
        ctx = ssl.create_default_context()
        tls = ctx.wrap_socket(socket.create_connection(address(url), timeout=0.3), server_hostname="127.0.0.1",
                              do_handshake_on_connect=False)
        self.addCleanup(tls.close)
        with self.assertRaises(socket.timeout):
            tls.do_handshake()
        # The listener shut down, the holding thread ends and closes what it held.
        listener.shutdown(socket.SHUT_RDWR)
        thread.join(5)
        self.assertFalse(thread.is_alive())
        conn.settimeout(2)
        self.assertEqual(conn.recv(1), b"", "the held connection was not closed")

    def test_unknown_outage(self):
        url, message = self.call_leaving_no_socket("down")
        self.assertIsNone(url)
        self.assertIn("CLAIMS_WARMUP_OUTAGE", message)
        self.assertIn("'down'", message)


if __name__ == "__main__":
    unittest.main()
