# SPDX-License-Identifier: BSD-3-Clause
"""The unixctl side of the fuzz suite's "ctl" category: malformed JSON-RPC
requests (app/control/unixctl_request.h) on the daemon's second socket,
each on a connection of its own, closed for writing after it.

Whatever the bytes, what comes back must be nothing but answers, each a
JSON object of exactly "id", "result" and "error", in UTF-8, and bytes
with anything but whitespace in them must get one at least (a complete
request its answer, the incomplete rest the server's own error once the
client has shut its side).
"""

import json

GOOD = (b'{"id":1,"method":"version","params":[]}',
        b'{"id":"a","method":"echo","params":["x","y z"]}',
        b'{"params":["vhost-user0"],"method":"dpif-netdev/pmd-rxq-show",'
        b'"id":[1,{"k":null}]}',
        b'{"id":2,"method":"tnl/arp/show","params":[]}',
        b'{"id":3,"method":"list-commands","params":[]}')

# the bytes random mutations insert
SPICE = b'{}[]",:\\ \x00\xff\xc3\x800aeu-.'


def path(sw):
    """vxswitch.PID.ctl, beside the control socket."""
    return sw.ctl_socket.parent / ("vxswitch.%d.ctl" % sw.proc.pid)


def answers(out):
    """The answers in 'out', or None if it is anything else."""
    try:
        text = out.decode()
    except UnicodeDecodeError:
        return None
    got, dec, i = [], json.JSONDecoder(), 0
    while i < len(text):
        try:
            obj, i = dec.raw_decode(text, i)
        except ValueError:
            return None
        if not isinstance(obj, dict) or set(obj) != {"id", "result",
                                                     "error"}:
            return None
        got.append(obj)
    return got


def raw(client, data, timeout=None):
    """Sends data on a fuzz_ctl.Client of the unixctl socket; (status,
    answers): "answered", "closed" (nothing back), "timeout", or "bad
    answer" (bytes back that are not answers)."""
    st, out = client.raw(data, timeout=timeout)
    if st == "timeout":
        return st, []
    if not out:
        return "closed", []
    got = answers(out)
    return ("answered", got) if got is not None else ("bad answer", out)


def garbage(rng, n):
    """(label, bytes, must_answer) requests, fixed cases then mutants."""
    g = GOOD[0]
    deep = b"[" * 100 + b"]" * 100
    fixed = [
        ("good", g, True), ("two in one", g + b"\n" + g, True),
        ("truncated", g[:-2], True), ("empty", b"", False),
        ("whitespace", b" \n\t", False), ("not an object", b"[1,2]", True),
        ("bare words", b"hello", True), ("lone quote", b'"', True),
        ("too deep", g[:-1] + b',"x":' + deep + b"}", True),
        ("deeper than jansson", b"[" * 5000 + b"]" * 5000, True),
        ("unclosed", b"[" * 100000, True),
        ("non-string params", b'{"id":1,"method":"echo","params":[1,null,'
         b'{},[]]}', True),
        ("method not a string", b'{"id":1,"method":5,"params":[]}', True),
        ("params not an array", b'{"id":1,"method":"echo","params":"a"}',
         True),
        ("no id", b'{"method":"version","params":[]}', True),
        ("NUL escape", b'{"id":1,"method":"echo","params":["\\u0000"]}',
         True),
        ("NUL in a key", b'{"id":1,"\\u0000":1,"method":"m","params":[]}',
         True),
        ("raw NUL", b'{"id":1,"method":"echo","params":["a\x00b"]}', True),
        ("not UTF-8", b'{"id":1,"method":"echo","params":["\xff\xfe"]}',
         True),
        ("overlong UTF-8", b'{"id":1,"method":"echo","params":["\xc0\xaf"]}',
         True),
        ("lone surrogate", b'{"id":1,"method":"echo","params":["\\udc00"]}',
         True),
        ("number past double", b'{"id":1e999,"method":"m","params":[]}',
         True),
        ("number past long long", b'{"id":99999999999999999999,'
         b'"method":"version","params":[]}', True),
        ("repeated members", b'{"id":1,"method":"a","method":"version",'
         b'"params":[1],"params":[]}', True),
        ("trailing garbage", g + b"x}]", True),
        ("too many params", b'{"id":1,"method":"echo","params":["a"'
         + b',"a"' * 20000 + b"]}", True),
        ("over 2 MiB", b'{"id":1,"method":"echo","params":["'
         + b"x" * (3 << 20), False),
    ]
    out = list(fixed)
    while len(out) < n:
        b = bytearray(rng.choice(GOOD))
        for _ in range(rng.randint(1, 4)):
            k, at = rng.randrange(4), rng.randrange(len(b) + 1)
            if k == 0:
                del b[at:]
            elif k == 1 and at < len(b):
                b[at] = rng.randrange(256)
            elif k == 2:
                b[at:at] = bytes([rng.choice(SPICE)])
            else:
                b[at:at] = b[at:at + rng.randint(1, 16)]
            if not b:
                break
        data = bytes(b)
        out.append(("mutant", data, data.strip() != b""))
    return out[:max(n, len(fixed))]
