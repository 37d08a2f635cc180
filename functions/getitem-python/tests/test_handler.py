"""handler.py: its pure pieces (/proc/self/stat, Init's measure, the answer's fields, the stack's
record) and the function as Init builds it, answering against a DynamoDB stand-in over TLS on
127.0.0.1: the cold and warm variants, a failed GetItem, and the warm-up's outages."""

import contextlib
import importlib
import importlib.util
import io
import json
import os
import tempfile
import time
import unittest
from unittest import mock

import boto3

import outage
import settings

from . import support

# handler.py's Init runs when it is imported: the cold variant, whose Init sends nothing, with
# an endpoint on loopback that nothing is sent to.
IMPORT_ENV = support.settings_env(AWS_ENDPOINT_URL_DYNAMODB="https://127.0.0.1:9")
HANDLER_PY = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "handler.py")


def import_handler():
    with mock.patch.dict(os.environ, support.environ(**IMPORT_ENV), clear=True):
        return importlib.import_module("handler")


class ModuleTest(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        cls.handler = import_handler()

    def run_init(self, **values):
        """Runs a fresh copy of handler.py's Init with values in the environment, returning the
        module and what Init wrote to stderr."""
        spec = importlib.util.spec_from_file_location("handler_init_test", HANDLER_PY)
        module = importlib.util.module_from_spec(spec)
        stderr = io.StringIO()
        with mock.patch.dict(os.environ, support.environ(**dict(IMPORT_ENV, **values)), clear=True):
            with contextlib.redirect_stderr(stderr):
                spec.loader.exec_module(module)
        self.addCleanup(module._function.client.close)
        return module, stderr.getvalue()

    def test_module_init(self):
        f = self.handler._function
        self.assertEqual((f.variant, f.table, f.warmup), ("cold", support.TABLE, None))
        self.assertEqual(f.key, {"pk": {"S": "bench"}, "n": {"N": "7"}})
        self.assertEqual(set(f.init), {"initMs", "initFrom", "initGoMs"})
        # A bad setting fails Init, naming it.
        with self.assertRaisesRegex(settings.SettingError, "CLAIMS_WARMUP_TIMEOUT_MS"):
            self.run_init(CLAIMS_WARMUP_TIMEOUT_MS="soon")
        # A failed warm-up does not: it is reported on stderr and in the answers (claim T4).
        module, stderr = self.run_init(CLAIMS_VARIANT="warm", CLAIMS_WARMUP_OUTAGE="refused")
        self.assertRegex(module._function.warmup.error, "^Could not connect")
        self.assertEqual(stderr, f"getitem: warm-up failed (ignored): {module._function.warmup.error}\n")
        self.assertEqual(module._function.init["initFrom"], "proc")

    def test_start_ticks(self):
        # Field n holds n * 11; the command name (field 2) holds spaces and parentheses.
        fields = " ".join(str(n * 11) for n in range(4, 53))
        self.assertEqual(self.handler.start_ticks(f"4242 (a) b (c)) S {fields}\n"), 22 * 11)
        for bad in ("4242 no name S 1 2 3", "4242 (x) S " + " ".join(["1"] * 18)):
            with self.subTest(stat=bad), self.assertRaisesRegex(ValueError, "/proc/self/stat"):
                self.handler.start_ticks(bad)

    def test_init_measure(self):
        h = self.handler
        since = h.since_process_start()
        # The process started before this module was imported, and after the machine booted.
        self.assertGreaterEqual(since, time.perf_counter() - h._module_start)
        self.assertLess(since, time.clock_gettime(time.CLOCK_BOOTTIME))
        m = h.measure_init(time.perf_counter())
        self.assertEqual(m["initFrom"], "proc")
        self.assertGreater(m["initGoMs"], 0.0)
        self.assertGreaterEqual(m["initMs"], m["initGoMs"])
        with mock.patch.object(h, "since_process_start", side_effect=OSError("no /proc")):
            m = h.measure_init(time.perf_counter())
        self.assertEqual(m["initFrom"], "python")
        self.assertEqual(m["initMs"], m["initGoMs"])

    def test_answer_fields_omit_empty_strings(self):
        tr = self.handler.phases.Tracer()
        tr.finish()
        p = tr.phases()
        self.assertEqual(set(self.handler._answer_fields(p)),
                         {"dnsMs", "dnsCpuMs", "connectMs", "connectCpuMs", "tlsMs", "tlsCpuMs", "ttfbMs",
                          "reused", "pooled", "totalMs", "attempts", "didResume"})
        p.update(tlsVersion="TLSv1.3", remoteAddr="127.0.0.1:443", curve="X25519")
        a = self.handler._answer_fields(p, "it failed")
        self.assertEqual((a["error"], a["tlsVersion"], a["remoteAddr"], a["curve"]),
                         ("it failed", "TLSv1.3", "127.0.0.1:443", "X25519"))
        self.assertNotIn("cipherSuite", a)

    def test_stack_names_the_vendored_package(self):
        with tempfile.TemporaryDirectory() as tmp:
            record = os.path.join(tmp, "vendored.json")
            with open(record, "w") as f:
                json.dump({"distribution": "Debian GNU/Linux 12 (bookworm)",
                           "packages": {"python3-boto3": "1.26.27+dfsg-1"}}, f)
            with mock.patch.object(self.handler, "VENDORED", record):
                s = self.handler.stack()
            with mock.patch.object(self.handler, "VENDORED", os.path.join(tmp, "absent.json")):
                missing = self.handler.packaged_as()
        self.assertEqual(s["language"], "python")
        self.assertTrue(s["sdkVersion"].startswith(
            f"{boto3.__version__} (python3-boto3 1.26.27+dfsg-1 of Debian GNU/Linux 12 (bookworm); botocore "))
        self.assertTrue(missing.startswith("no record of its package: "))


class FunctionTest(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        cls.handler = import_handler()
        cls.cert, cls.key = support.make_certificate(cls)

    def setUp(self):
        support.use_environ(self)
        self.ddb = support.FakeDynamoDB(self, self.cert, self.key)

    def initialize(self, **values):
        env = support.settings_env(AWS_ENDPOINT_URL_DYNAMODB=self.ddb.url, CLAIMS_CA_FILE=self.cert, **values)
        f = self.handler.initialize(settings.load_settings(env.get))
        self.addCleanup(f.client.close)
        return f

    def test_cold(self):
        f = self.initialize()
        r = f.handle({}, None)
        self.assertEqual(self.ddb.requests, [("GetItem", {"TableName": support.TABLE,
                                                          "Key": {"pk": {"S": "bench"}, "n": {"N": "7"}}}, 0)])
        self.assertEqual((r["found"], r["variant"], r["invocation"], r["pid"]), (True, "cold", 1, os.getpid()))
        self.assertNotIn("error", r)
        self.assertNotIn("warmup", r)
        self.assertFalse(r["reused"])
        self.assertGreater(r["connectMs"], 0.0)
        self.assertGreater(r["tlsMs"], 0.0)
        self.assertGreaterEqual(r["handlerMs"], r["totalMs"])
        self.assertEqual(r["stack"]["sdk"], "boto3")
        self.assertIn("count", r["roots"])
        json.dumps(r)  # the runtime sends it as JSON

        self.ddb.answers["GetItem"] = (200, {})
        r = f.handle({}, None)
        self.assertEqual((r["found"], r["invocation"], r["reused"], r["connectMs"]), (False, 2, True, 0.0))
        self.assertNotIn("error", r)

        # A failed GetItem is answered, with its phases, not raised.
        self.ddb.answers["GetItem"] = (400, support.error("ResourceNotFoundException", "no such table"))
        r = f.handle({}, None)
        self.assertEqual((r["found"], r["invocation"], r["attempts"], r["reused"]), (False, 3, 1, True))
        self.assertIn("ResourceNotFoundException", r["error"])
        self.assertEqual(self.ddb.connections, 1)

    def test_warm_up_leaves_the_handlers_connection(self):
        f = self.initialize(CLAIMS_VARIANT="warm")
        warmup = f.warmup.result()
        self.assertNotIn("error", warmup)
        self.assertEqual((warmup["attempts"], warmup["reused"]), (1, False))
        self.assertGreater(warmup["connectMs"], 0.0)
        r = f.handle({}, None)
        self.assertTrue(r["found"])
        self.assertEqual(r["warmup"], warmup)
        # The first call takes the connection the warm-up opened (claim T3).
        self.assertTrue(r["reused"])
        self.assertEqual((r["connectMs"], r["tlsMs"]), (0.0, 0.0))
        self.assertEqual([(op, conn) for op, _, conn in self.ddb.requests], [("ListTables", 0), ("GetItem", 0)])
        self.assertEqual(self.ddb.connections, 1)

    def test_warm_up_outages(self):
        for how, error in (("refused", "Could not connect"), ("stalled", "(?i)timeout")):
            with self.subTest(outage=how):
                start = time.monotonic()
                with support.capture_stalls(self):
                    f = self.initialize(CLAIMS_VARIANT="warm", CLAIMS_WARMUP_OUTAGE=how, CLAIMS_WARMUP_TIMEOUT_MS="300")
                took = time.monotonic() - start
                self.assertLess(took, 3.0, "the warm-up's bound did not hold")
                warmup = f.warmup.result()
                self.assertRegex(warmup["error"], error)
                self.assertEqual(warmup["attempts"], 1)
                # Only the warm-up went there: the handler's GetItem goes to its endpoint.
                self.ddb.requests.clear()
                r = f.handle({}, None)
                self.assertTrue(r["found"])
                self.assertEqual(r["warmup"]["error"], warmup["error"])
                self.assertEqual([op for op, _, _ in self.ddb.requests], ["GetItem"])
        self.assertGreaterEqual(took, 0.25, "the stall ended before the bound")

    def test_clients_share_the_session(self):
        env = support.settings_env(AWS_ENDPOINT_URL_DYNAMODB=self.ddb.url, CLAIMS_CA_FILE=self.cert)
        new_client = self.handler.new_client_maker(settings.load_settings(env.get))
        a = new_client(self.ddb.url)
        self.addCleanup(a.close)
        url = outage.outage_endpoint(outage.REFUSED)
        b = new_client(url, share_with=a)
        c = new_client(self.ddb.url)
        self.addCleanup(c.close)
        self.assertIs(b._endpoint.http_session, a._endpoint.http_session)
        self.assertIsNot(c._endpoint.http_session, a._endpoint.http_session)
        self.assertEqual(b.meta.endpoint_url, url)


if __name__ == "__main__":
    unittest.main()
