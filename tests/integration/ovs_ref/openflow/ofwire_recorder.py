#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# A recording proxy for one OpenFlow connection at a time: listens on a
# unix socket (what `ovs-ofctl ... unix:SOCK` connects to), forwards every
# byte to the bridge's management socket (ovs-vswitchd's br0.mgmt) and
# back, and appends each whole OpenFlow message to LOG as
#   > VERSION TYPE HEX      (client to switch)
#   < VERSION TYPE HEX      (switch to client)
# make-ovs-ref-ofwire.sh writes a "## ..." line to LOG before each command,
# so the messages of a command follow its line.
# Usage: ofwire_recorder.py LISTEN_SOCK TARGET_SOCK LOG
import os
import selectors
import socket
import sys


def split_messages(buf):
    """Whole OpenFlow messages at the front of buf, and what remains."""
    msgs = []
    while len(buf) >= 8:
        length = int.from_bytes(buf[2:4], 'big')
        if length < 8 or len(buf) < length:
            break
        msgs.append(bytes(buf[:length]))
        buf = buf[length:]
    return msgs, buf


def serve(conn, target, log):
    up = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    up.connect(target)
    sel = selectors.DefaultSelector()
    sel.register(conn, selectors.EVENT_READ, (up, '>'))
    sel.register(up, selectors.EVENT_READ, (conn, '<'))
    pending = {'>': b'', '<': b''}
    while True:
        for key, _ in sel.select():
            peer, d = key.data
            data = key.fileobj.recv(65536)
            if not data:
                up.close()
                conn.close()
                return
            peer.sendall(data)
            msgs, pending[d] = split_messages(pending[d] + data)
            with open(log, 'a') as f:
                for m in msgs:
                    f.write('%s %d %d %s\n' % (d, m[0], m[1], m.hex()))


def main():
    listen, target, log = sys.argv[1:4]
    if os.path.exists(listen):
        os.unlink(listen)
    srv = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    srv.bind(listen)
    srv.listen(4)
    while True:
        conn, _ = srv.accept()
        try:
            serve(conn, target, log)
        except OSError:
            conn.close()


if __name__ == '__main__':
    main()
