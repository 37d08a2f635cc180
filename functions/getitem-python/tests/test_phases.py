"""phases.py (and attach.py): the phases of botocore calls on an instrumented client, against a
DynamoDB stand-in over TLS on 127.0.0.1, and the warm-up's bound (phases.bounded)."""

import time
import unittest

from botocore.exceptions import ClientError

import outage
import phases
from attach import attach

from . import support


class AttachTest(unittest.TestCase):

    def test_attach_nests_and_restores(self):
        a, b = phases.Tracer(), phases.Tracer()
        self.assertIsNone(phases.current())
        with attach(a):
            self.assertIs(phases.current(), a)
            with self.assertRaises(KeyError):
                with attach(b):
                    self.assertIs(phases.current(), b)
                    raise KeyError("the call failed")
            self.assertIs(phases.current(), a)
        self.assertIsNone(phases.current())


class PhasesTest(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        cls.cert, cls.key = support.make_certificate(cls)

    def setUp(self):
        support.use_environ(self)
        self.ddb = support.FakeDynamoDB(self, self.cert, self.key)

    def client(self, endpoint_url):
        client = support.new_client(endpoint_url, self.cert)
        self.addCleanup(client.close)
        phases.install(client)
        return client

    def get_item(self, client):
        tr = phases.Tracer()
        with attach(tr):
            out = client.get_item(TableName=support.TABLE, Key={"pk": {"S": "bench"}})
        tr.finish()
        self.assertEqual(out["Item"], support.ITEM)
        return tr.phases()

    def test_new_connection_then_reused(self):
        client = self.client(self.ddb.url)
        first = self.get_item(client)
        self.assertEqual(first["attempts"], 1)
        self.assertEqual(first["dnsMs"], 0.0, "an IP literal is no lookup")
        self.assertGreater(first["connectMs"], 0.0)
        self.assertGreater(first["tlsMs"], 0.0)
        # ttfb runs from asking the pool for a connection: it holds the connection's set-up.
        self.assertGreater(first["ttfbMs"], first["connectMs"] + first["tlsMs"])
        self.assertGreaterEqual(first["totalMs"], first["ttfbMs"])
        self.assertGreater(first["connectCpuMs"] + first["tlsCpuMs"], 0.0)
        self.assertFalse(first["reused"])
        self.assertTrue(first["pooled"])
        self.assertIn(first["tlsVersion"], ("TLSv1.2", "TLSv1.3"))
        self.assertNotEqual(first["cipherSuite"], "")
        self.assertFalse(first["didResume"])
        self.assertEqual(first["remoteAddr"], "127.0.0.1:%d" % int(self.ddb.url.rsplit(":", 1)[1]))
        self.assertEqual((first["curve"], first["writeError"]), ("", ""))
        self.assertIsNotNone(phases.roots, "the CA file's loading was not timed")
        self.assertEqual(set(phases.roots), {"when", "count", "ms", "cpuMs"})
        self.assertGreater(phases.roots["ms"], 0.0)

        second = self.get_item(client)
        self.assertTrue(second["reused"])
        self.assertTrue(second["pooled"])
        self.assertEqual((second["connectMs"], second["tlsMs"], second["dnsMs"]), (0.0, 0.0, 0.0))
        self.assertGreater(second["ttfbMs"], 0.0)
        self.assertEqual(second["attempts"], 1)
        self.assertEqual(second["remoteAddr"], first["remoteAddr"])
        self.assertEqual(second["tlsVersion"], first["tlsVersion"])
        self.assertEqual(self.ddb.connections, 1)
        self.assertEqual([(op, conn) for op, _, conn in self.ddb.requests], [("GetItem", 0), ("GetItem", 0)])

    def test_bounded_stall_is_one_attempt_within_the_bound(self):
        with support.capture_stalls(self):
            client = self.client(outage.outage_endpoint(outage.STALLED))
        tr = phases.Tracer()
        start = time.monotonic()
        with self.assertRaisesRegex(Exception, "(?i)timeout"):
            with attach(tr), phases.bounded(0.3):
                client.list_tables(Limit=1)
        took = time.monotonic() - start
        self.assertGreaterEqual(took, 0.25)
        self.assertLess(took, 3.0, "the bound did not hold (botocore's own timeout is 60 s, with retries)")
        self.assertEqual(tr.phases()["attempts"], 1)
        self.assertGreater(tr.phases()["connectMs"], 0.0)

    def test_bounded_error_is_not_retried(self):
        self.ddb.answers["ListTables"] = (500, support.error("InternalServerError", "try again"))
        client = self.client(self.ddb.url)
        tr = phases.Tracer()
        with self.assertRaisesRegex(ClientError, "InternalServerError"):
            with attach(tr), phases.bounded(5):
                client.list_tables(Limit=1)
        self.assertEqual(tr.phases()["attempts"], 1)
        self.assertEqual([op for op, _, _ in self.ddb.requests], ["ListTables"])
        # Out of the block, requests are the SDK's again: no bound, retries as botocore does.
        self.ddb.answers["ListTables"] = (200, {"TableNames": []})
        self.assertEqual(client.list_tables(Limit=1)["TableNames"], [])


if __name__ == "__main__":
    unittest.main()
