"""settings.py: every setting read and checked; a bad one raises SettingError naming it."""

import os
import tempfile
import unittest

import settings
from settings import SettingError

from . import support

PEM = b"-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n"


def load(**values):
    return settings.load_settings(support.settings_env(**values).get)


class LoadSettingsTest(unittest.TestCase):

    def setUp(self):
        tmp = tempfile.TemporaryDirectory()
        self.addCleanup(tmp.cleanup)
        self.pem = os.path.join(tmp.name, "ca.pem")
        with open(self.pem, "wb") as f:
            f.write(PEM)
        self.not_pem = os.path.join(tmp.name, "ca.der")
        with open(self.not_pem, "wb") as f:
            f.write(b"\x30\x82\x01\x0a")
        self.missing = os.path.join(tmp.name, "absent.pem")

    def test_every_setting_read(self):
        s = load(CLAIMS_VARIANT="warm", CLAIMS_TABLE="t1",
                 CLAIMS_KEY='{"pk":"bench","sk":"item-0","n":7,"f":1.50,"e":-1e3,"u":"\\u00e9"}',
                 CLAIMS_CA_FILE=self.pem, CLAIMS_WARMUP_TIMEOUT_MS="250", CLAIMS_WARMUP_OUTAGE="stalled",
                 AWS_ENDPOINT_URL_DYNAMODB="https://ddb.test", AWS_ENDPOINT_URL="https://other.test",
                 AWS_REGION="us-west-2", AWS_DEFAULT_REGION="eu-central-1")
        self.assertEqual(s.variant, "warm")
        self.assertEqual(s.table, "t1")
        # Numbers stay as written (DynamoDB's N is a string), strings are S.
        self.assertEqual(s.key, {"pk": {"S": "bench"}, "sk": {"S": "item-0"}, "n": {"N": "7"},
                                 "f": {"N": "1.50"}, "e": {"N": "-1e3"}, "u": {"S": "\u00e9"}})
        self.assertEqual(s.ca_file, self.pem)
        self.assertEqual(s.warmup_timeout, 0.25)
        self.assertEqual(s.warmup_outage, "stalled")
        self.assertEqual(s.endpoint, "https://ddb.test")
        self.assertEqual(s.region, "us-west-2")

    def test_defaults_and_fallbacks(self):
        s = load(AWS_REGION=None, AWS_DEFAULT_REGION="eu-central-1", AWS_ENDPOINT_URL="https://other.test")
        self.assertEqual((s.variant, s.ca_file, s.warmup_outage), ("cold", "", ""))
        self.assertEqual(s.warmup_timeout, settings.DEFAULT_WARMUP_TIMEOUT_MS / 1000.0)
        self.assertEqual(s.warmup_timeout, 1.0)
        self.assertEqual(s.endpoint, "https://other.test")
        self.assertEqual(s.region, "eu-central-1")
        s = load(CLAIMS_WARMUP_TIMEOUT_MS="+40", CLAIMS_WARMUP_OUTAGE="refused", CLAIMS_CA_FILE="")
        self.assertIsNone(s.endpoint)
        self.assertEqual(s.region, support.REGION)
        self.assertEqual(s.warmup_timeout, 0.04)
        self.assertEqual(s.warmup_outage, "refused")

    def test_bad_settings_fail_naming_them(self):
        cases = [
            ("CLAIMS_VARIANT", None), ("CLAIMS_VARIANT", "hot"), ("CLAIMS_VARIANT", "Cold"),
            ("CLAIMS_TABLE", None), ("CLAIMS_TABLE", ""),
            ("CLAIMS_KEY", None), ("CLAIMS_KEY", "pk=bench"), ("CLAIMS_KEY", '{"pk":"bench"'),
            ("CLAIMS_KEY", '["bench"]'), ("CLAIMS_KEY", '"bench"'), ("CLAIMS_KEY", "{}"),
            ("CLAIMS_KEY", '{"pk":true}'), ("CLAIMS_KEY", '{"pk":null}'), ("CLAIMS_KEY", '{"pk":{"S":"b"}}'),
            ("CLAIMS_KEY", '{"pk":["b"]}'), ("CLAIMS_KEY", '{"pk":NaN}'), ("CLAIMS_KEY", '{"pk":-Infinity}'),
            ("CLAIMS_WARMUP_TIMEOUT_MS", "0"), ("CLAIMS_WARMUP_TIMEOUT_MS", "+0"),
            ("CLAIMS_WARMUP_TIMEOUT_MS", "-5"), ("CLAIMS_WARMUP_TIMEOUT_MS", "1.5"),
            ("CLAIMS_WARMUP_TIMEOUT_MS", "1e3"), ("CLAIMS_WARMUP_TIMEOUT_MS", "250ms"),
            ("CLAIMS_WARMUP_TIMEOUT_MS", " 250"), ("CLAIMS_WARMUP_TIMEOUT_MS", "1_000"),
            ("CLAIMS_WARMUP_OUTAGE", "down"), ("CLAIMS_WARMUP_OUTAGE", "Refused"),
            ("CLAIMS_CA_FILE", self.missing), ("CLAIMS_CA_FILE", self.not_pem),
            ("CLAIMS_CA_FILE", os.path.dirname(self.pem)),
            ("AWS_REGION", None),
        ]
        for name, value in cases:
            with self.subTest(setting=name, value=value):
                with self.assertRaises(SettingError) as cm:
                    load(**{name: value})
                self.assertIn(name, str(cm.exception))
                if value:
                    self.assertIn(repr(value) if name != "CLAIMS_CA_FILE" else value, str(cm.exception))

    def test_the_first_bad_setting_is_reported(self):
        # Init fails on the first problem, in the order the settings are read.
        with self.assertRaisesRegex(SettingError, "^CLAIMS_VARIANT"):
            load(CLAIMS_VARIANT="hot", CLAIMS_TABLE=None, AWS_REGION=None)
        with self.assertRaisesRegex(SettingError, "^CLAIMS_TABLE"):
            load(CLAIMS_TABLE=None, CLAIMS_KEY=None)


if __name__ == "__main__":
    unittest.main()
