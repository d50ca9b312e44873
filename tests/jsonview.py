#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""What tests/cli-views.sh asks of a JSON document, through python3-jsonschema
(an implementation of JSON Schema that owes nothing to hibimg).

  jsonview.py validate SCHEMA DEF FILE   FILE is one document valid as $defs/DEF
                                         (DEF any: as any hibimg document)
  jsonview.py keys FILE [MEMBER]         the keys of each row, one line each
  jsonview.py error FILE CMD STATUS      the document carries the error
  jsonview.py doccheck SCHEMA MD         every key's definition is in MD, verbatim
"""
import json
import re
import sys


def load(path):
    try:
        with open(path) as f:
            return json.load(f)     # one document: trailing data is an error
    except ValueError as e:
        sys.exit("%s: not one JSON document: %s" % (path, e))


def validate(schema_path, name, path):
    import jsonschema
    schema = load(schema_path)
    if name == "any":           # any hibimg document: the schema itself
        one = schema
    elif name not in schema["$defs"]:
        sys.exit("no $defs/%s in %s" % (name, schema_path))
    else:
        one = {"$schema": schema["$schema"], "$defs": schema["$defs"], "$ref": "#/$defs/" + name}
    v = jsonschema.Draft202012Validator(one)
    errors = sorted(v.iter_errors(load(path)), key=lambda e: [str(p) for p in e.absolute_path])
    for e in errors[:5]:
        print("%s: %s" % ("/".join(str(p) for p in e.absolute_path) or "(top)", e.message))
    return 1 if errors else 0


def rows(doc, member):
    (top,) = doc.values()
    if isinstance(top, dict):
        top = top.get(member) if member else top
    if isinstance(top, dict):
        top = [top]
    return top


def keys(path, member=None):
    doc = load(path)
    if "error" in doc:
        print("the error document: %s" % doc["error"].get("message"))
        return 1
    for r in rows(doc, member):
        print(",".join(r))
    return 0


def error(path, cmd, status):
    doc = load(path)
    status = int(status)
    if "error" in doc:
        e = doc["error"]
        if doc.get("exit") != status or e.get("command") != cmd or not e.get("message"):
            print("error document %r does not say %s, exit %d" % (doc, cmd, status))
            return 1
        return 0
    # a command of several inputs keeps the record, with its error
    names = {0: "intact", 4: "encrypted", 1: "damaged", 2: "unsupported", 3: "io-error"}
    for r in rows(doc, None):
        if r.get("error") and r.get("status") == names[status]:
            return 0
    print("neither an error document nor a record with error and status %s" % names[status])
    return 1


def doccheck(schema_path, md_path):
    defs = load(schema_path)["$defs"]
    md = open(md_path).read()
    bad = 0
    for k, d in sorted(defs.items()):
        if k.startswith(("doc-", "row-")):
            continue
        name = d.get("x-hibimg-name", k)     # "<codec>_bytes" for a pattern
        # the type column may hold "a \| b"
        m = re.search(r"^\| `%s` \| (?:[^|]|\\\|)* \| (.*) \|$" % re.escape(name), md, re.M)
        if not m:
            print("%s: no row for `%s`" % (md_path, name))
            bad = 1
        elif m.group(1) != d["description"]:
            print("%s: `%s` says %r, the schema %r" % (md_path, name, m.group(1), d["description"]))
            bad = 1
    return bad


if __name__ == "__main__":
    cmds = {"validate": validate, "keys": keys, "error": error, "doccheck": doccheck}
    if len(sys.argv) < 2 or sys.argv[1] not in cmds:
        sys.exit(__doc__)
    sys.exit(cmds[sys.argv[1]](*sys.argv[2:]))
