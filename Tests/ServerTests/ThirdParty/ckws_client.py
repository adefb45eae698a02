"""A CloudKit Web Services session driven by third-party code pointed at a CloudNotes server: list zones, create,
update, look up and query records, fetch zone and database changes.

Usage: ckws_client.py SERVER_URL CONTAINER key KEY_ID KEY_PEM_FILE
       ckws_client.py SERVER_URL CONTAINER token CK_API_TOKEN CK_WEB_AUTH_TOKEN

With a key, requests-cloudkit (PyPI) signs every request server-to-server. With a web token pair, the requests
carry `ckAPIToken` and `ckWebAuthToken` as query parameters, URL-encoded by `requests`, as CloudKit JS sends them
(no Python library for web tokens exists to use instead).
Prints one JSON object of what it saw; exits non-zero on the first unexpected answer.
"""
import base64
import hashlib
import json
import sys

import ecdsa
import requests
from requests_cloudkit import CloudKitAuth


class Python3CloudKitAuth(CloudKitAuth):
    """requests-cloudkit 1.0.1 as released hashes and signs str, which Python 3 refuses: the same, in bytes."""

    def encode_body(self, body):
        if body is None:
            body = b""
        elif isinstance(body, str):
            body = body.encode()
        return base64.b64encode(hashlib.sha256(body).digest()).decode()

    def make_signature(self, formatted_date, body, path):
        message = "{}:{}:{}".format(formatted_date, self.encode_body(body), path).encode()
        with open(self.key_file_name) as pem:
            key = ecdsa.SigningKey.from_pem(pem.read())
        return base64.b64encode(key.sign(message, hashfunc=hashlib.sha256, sigencode=ecdsa.util.sigencode_der)).decode()


def main():
    server, container, mode, first, second = sys.argv[1:6]
    if mode == "key":
        auth, params = Python3CloudKitAuth(key_id=first, key_file_name=second), None
    else:
        auth, params = None, {"ckAPIToken": first, "ckWebAuthToken": second}
    base = "{}/database/1/{}/development/private/".format(server, container)

    def call(operation, body):
        answer = requests.post(base + operation, params=params, data=json.dumps(body), auth=auth, timeout=10)
        if answer.status_code != 200:
            sys.exit("{} answered {}: {}".format(operation, answer.status_code, answer.text))
        return answer.json()

    zone = {"zoneName": "Trip"}
    seen = {}
    call("zones/modify", {"operations": [{"operationType": "create", "zone": {"zoneID": zone}}]})
    seen["zones"] = sorted(z["zoneID"]["zoneName"] for z in call("zones/list", {})["zones"])
    created = call("records/modify", {"zoneID": zone, "operations": [
        {"operationType": "create", "record": {"recordName": "day-1", "recordType": "Post", "pluginFields": {},
                                               "fields": {"title": {"value": "Day one", "type": "STRING"},
                                                          "km": {"value": 12, "type": "INT64"}}}}]})["records"][0]
    updated = call("records/modify", {"zoneID": zone, "operations": [
        {"operationType": "update", "record": {"recordName": "day-1", "recordType": "Post",
                                               "recordChangeTag": created["recordChangeTag"],
                                               "fields": {"title": {"value": "Day one, rain", "type": "STRING"}}}}]})["records"][0]
    stale = call("records/modify", {"zoneID": zone, "operations": [
        {"operationType": "update", "record": {"recordName": "day-1", "recordType": "Post",
                                               "recordChangeTag": created["recordChangeTag"],
                                               "fields": {"title": {"value": "lost?", "type": "STRING"}}}}]})["records"][0]
    seen["stale update"] = stale.get("serverErrorCode")
    looked = call("records/lookup", {"zoneID": zone, "records": [{"recordName": "day-1"}]})["records"][0]
    seen["looked up"] = [looked["fields"]["title"]["value"], looked["fields"]["km"]["value"]]
    query = call("records/query", {"zoneID": zone, "query": {"recordType": "Post", "filterBy": [
        {"comparator": "BEGINS_WITH", "fieldName": "title", "fieldValue": {"value": "Day", "type": "STRING"}}]}})
    seen["query"] = [r["recordName"] for r in query["records"]]
    zone_changes = call("changes/zone", {"zones": [{"zoneID": zone}]})["zones"][0]
    seen["zone changes"] = [r["recordName"] for r in zone_changes["records"]]
    database_changes = call("changes/database", {})
    seen["database changes"] = sorted(z["zoneID"]["zoneName"] for z in database_changes["zones"])
    seen["update tag moved"] = updated["recordChangeTag"] != created["recordChangeTag"]
    print(json.dumps(seen, sort_keys=True))


if __name__ == "__main__":
    main()
