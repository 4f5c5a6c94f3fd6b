#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# Sends broken flow_mods to ovs-vswitchd's management socket and records
# the OFPT_ERROR it answers each with: the mutants test_ofp_wire.c makes
# of recorded flow_mods (an unknown field, action, experimenter, NX
# subtype, instruction, a bad action length, table 255, a bad command, an
# unknown flag) and a check_overlap add overlapping a rule. Appends to LOG:
#   ## V NAME
#   > HEX      (what was sent)
#   < HEX      (OVS's answer)
# Usage: ofwire_errors.py MGMT_SOCK VECTORS LOG
import socket
import sys

BASE = {  # a flow_mod of vectors.txt per version: (command text, kind)
    10: 'add-flow ip,ct_state=+trk+est,ct_zone=5,ct_mark=0x1/0xff,'
        'ct_label=0x1/0x1,actions=output:1',
    13: 'add-flow ip,nw_src=10.0.0.0/8,nw_dst=192.168.1.1,'
        'actions=output:in_port',
    14: 'add-flow ip,nw_src=10.0.0.0/8,nw_dst=192.168.1.1,'
        'actions=output:in_port',
    15: 'add-flow ip,nw_src=10.0.0.0/8,nw_dst=192.168.1.1,'
        'actions=output:in_port',
}
OVERLAP_FIRST = ('add-flow ip,actions=ct(commit,nat(src=10.0.0.1-10.0.0.5:'
                 '1000-2000))')


def flow_mods(vectors):
    """{(version, command text): flow_mod bytes} from vectors.txt"""
    out, key = {}, None
    for line in open(vectors):
        if line.startswith('## '):
            v, text = line[3:].rstrip('\n').split(' ', 1)
            key = (int(v), text)
        elif line.startswith('> ') and key and key not in out:
            m = bytes.fromhex(line.split()[3])
            if m[1] == 14 or (m[1] == 4 and m[15] == 13):
                out[key] = m
    return out


def locate(m):
    """offsets of the first TLV, first action, first instruction"""
    if m[0] == 1 and m[1] == 4:
        ml = int.from_bytes(m[40:42], 'big')
        return 48, 48 + ((ml + 7) & ~7), None
    ml = int.from_bytes(m[50:52], 'big')
    inst = 48 + ((ml + 7) & ~7)
    return 52, inst + 8, inst


def mutants(v, m):
    tlv, act, inst = locate(m)
    b = bytearray(m)
    x = bytearray(m)
    x[tlv:tlv + 3] = bytes([0, 1, (127 << 1) | (x[tlv + 2] & 1)])
    yield 'unknown_field', x
    x = bytearray(m)
    x[act:act + 2] = b'\x77\x77'
    yield 'unknown_action', x
    x = bytearray(m)
    x[act + 2:act + 4] = b'\x00\x04'
    yield 'action_len_4', x
    if v > 10:
        x = bytearray(m)
        x[act:act + 2] = b'\xff\xff'
        x[act + 4:act + 8] = b'\x00\xab\xcd\xef'
        yield 'unknown_experimenter', x
        x = bytearray(m)
        x[act:act + 2] = b'\xff\xff'
        x[act + 4:act + 10] = b'\x00\x00\x23\x20\x7f\xff'
        yield 'unknown_nx_subtype', x
        x = bytearray(m)
        x[inst:inst + 2] = b'\x00\x42'
        yield 'unknown_instruction', x
        x = bytearray(m)
        x[24] = 0xff
        yield 'table_255', x
        x = bytearray(m)
        x[25] = 7
        yield 'bad_command', x
        x = bytearray(m)
        x[44:46] = b'\x00\x80'
        yield 'bad_flags', x
    else:
        x = bytearray(m)
        x[24:26] = b'\x00\x07'
        yield 'bad_command', x


def transact(path, v, msgs):
    """hello, then msgs, then a barrier; the errors received"""
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.connect(path)
    ver = {10: 1, 13: 4, 14: 5, 15: 6}[v]
    s.sendall(bytes([ver, 0, 0, 8, 0, 0, 0, 1]))
    barrier = bytes([ver, 18 if ver == 1 else 20, 0, 8, 0, 0, 0x99, 0x99])
    for m in msgs:
        s.sendall(m)
    s.sendall(barrier)
    buf, errors = b'', []
    s.settimeout(5)
    while True:
        while len(buf) < 8 or len(buf) < int.from_bytes(buf[2:4], 'big'):
            data = s.recv(65536)
            if not data:
                return errors
            buf += data
        n = int.from_bytes(buf[2:4], 'big')
        msg, buf = buf[:n], buf[n:]
        if msg[1] == 1:
            errors.append(msg)
        if msg[4:8] == b'\x00\x00\x99\x99':
            s.close()
            return errors


def main():
    sock, vectors, log = sys.argv[1:4]
    fms = flow_mods(vectors)
    with open(log, 'a') as f:
        for v in (10, 13, 14, 15):
            for name, m in mutants(v, fms[(v, BASE[v])]):
                m[4:8] = b'\x00\x00\x00\x42'
                errs = transact(sock, v, [bytes(m)])
                f.write('## %d %s\n> %s\n' % (v, name, m.hex()))
                for e in errs:
                    f.write('< %s\n' % e.hex())
            if v > 10:
                # ip at priority 32768, then BASE (ip,nw_src=...) at the
                # same priority with check_overlap
                first = fms[(v, OVERLAP_FIRST)]
                m = bytearray(fms[(v, BASE[v])])
                m[4:8] = b'\x00\x00\x00\x43'
                m[45] |= 2
                errs = transact(sock, v, [first, bytes(m)])
                f.write('## %d overlap\n> %s\n' % (v, m.hex()))
                for e in errs:
                    f.write('< %s\n' % e.hex())
                delete = bytearray(first[:56])
                delete[2:4] = b'\x00\x38'
                delete[24], delete[25] = 0xff, 3   # every table, delete
                delete[48:56] = b'\x00\x01\x00\x04\x00\x00\x00\x00'
                transact(sock, v, [bytes(delete)])


if __name__ == '__main__':
    main()
