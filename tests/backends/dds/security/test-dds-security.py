#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""dds: networks with DDS Security (security=DIR), on loopback.

The files are made with the commands of docs/security.md as written
(make-files.sh runs its blocks). Each node is a tests/backends/dds/dds-peer
of its own, driven line by line (every step waits for its answer: a ready
signal); Cyclone's access control holds one node's permissions per process,
so secure nodes never share one. The stranger is
tests/backends/dds/security/dds-stranger, built from dds-wire.idl as anyone
could.

Cases:
  baseline   without security, the stranger's write, event and presence
             claim as node 7 reach the victims (what security is for);
  network    three secure nodes: memory, events, a record, a ring,
             heartbeats and presence (NODE_UP / NODE_DOWN);
  strangers  at the victims (no write lands, no event, no new node, and
             the network still works; a stranger no victim's reader
             matches cannot send a snapshot answer either): a participant without a certificate;
             one with another CA's certificate; node 3's certificate
             publishing as node 1 (its own library refuses), and the same
             with permissions of its own making signed by another CA (the
             victims refuse to match it); node 3's certificate in its own
             partition claiming node 7 and writing as it, or writing as
             node 1 (the victims refuse a sample whose node id is not its
             writer's partition's);
  revoked    node 3's certificate revoked (docs/security.md's commands),
             the CA's list at nodes 1 and 2: it never matches them;
  errors     security= with missing files, a key that is not PEM, another
             node's files, a certificate that is not the key's, a key
             others may read, no node=; each file wrong in its own way
             (expired, not yet valid, another CA's, changed after it was
             signed, a grant for another subject or one that ended, an
             expired revocation list, the node's own certificate
             revoked): clear errors naming the file and why.

Exit 77 without Cyclone DDS in the build or without openssl.
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
SRCDIR = os.environ.get("srcdir", os.path.join(HERE, "..", "..", "..", ".."))
DOC = os.path.join(SRCDIR, "docs", "security.md")
MAKE_FILES = os.path.join(SRCDIR, "tests", "backends", "dds", "security", "make-files.sh")
PEER = os.path.abspath("tests/backends/dds/dds-peer")
ROGUE = os.path.abspath("tests/backends/dds/security/dds-stranger")

sys.path.insert(0, os.path.join(HERE, ".."))
import dds_peer  # noqa: E402
from dds_peer import GUARD_MS  # noqa: E402
# How long a stranger tries to be matched: what the victims refuse they
# refuse for good, so this only bounds the run time.
ROGUE_WAIT_MS = "3000"

INTR1, INTR2, NODE_UP, NODE_DOWN = 1, 2, 17, 18
ROGUE_MATCHED, ROGUE_NOT_PUBLISHED, ROGUE_UNMATCHED = 0, 1, 3


def skip(why):
    print(f"test-dds-security: SKIP: {why}")
    sys.exit(77)


class Peer(dds_peer.Peer):
    """A dds-peer: one node in a process of its own."""

    def __init__(self, env, uri, k):
        super().__init__([PEER, uri], env, k, label="node")

    def nodes(self, n):
        """Wait (the guard) until it sees n nodes, itself included."""
        for _ in range(GUARD_MS // 20):
            if self.ask("nodes") == f"nodes {n}":
                return
            self.ask("until 0x0 never 20")  # a bounded pause inside the peer
        raise AssertionError(f"node {self.k} never saw {n} nodes")


def open_error(env, uri):
    """What dds-peer says when uri cannot open: (code, message)."""
    out = subprocess.run([PEER, uri], env=env, input="quit\n", capture_output=True,
                         text=True, timeout=60)
    parts = out.stdout.strip().split(" ", 2)
    assert parts[0] == "error" and out.returncode == 1, f"{uri} opened: {out.stdout!r}"
    return int(parts[1]), parts[2]


class Network:
    def __init__(self, env, name, domain):
        self.env, self.name, self.domain = env, name, domain
        self.peers = []
        self.seq = 0  # the stranger's sequence: a new one each time, never a duplicate

    def start(self, k, extra=""):
        uri = f"dds:{self.name}?node={k}&size=64K&domain={self.domain}&join=300{extra}"
        p = Peer(self.env, uri, k)
        self.peers.append(p)
        return p

    def rogue(self, writer, text, partition=None, sec=None, pca=None, event=None,
              presence=False):
        # Every node's reader: the sample is only for those matched by then.
        env = dict(self.env, RFM_ROGUE_WAIT_MS=ROGUE_WAIT_MS,
                   RFM_ROGUE_READERS=str(len(self.peers)))
        # A TSan build: the stranger is Cyclone and OpenSSL only, neither
        # built with TSan, whose races inside them would be its exit status.
        env["TSAN_OPTIONS"] = (env.get("TSAN_OPTIONS", "") + " exitcode=0").strip()
        if partition:
            env["RFM_ROGUE_PARTITION"] = f"{self.name}.{partition}"
        if sec:
            env["RFM_ROGUE_SECURITY"] = sec
        if pca:
            env["RFM_ROGUE_PERMISSIONS_CA"] = pca
        if event:
            env["RFM_ROGUE_EVENT"] = str(event)
        self.seq += 1
        argv = [ROGUE, str(self.domain), self.name, str(writer), "1", str(self.seq), "0x400",
                text]
        who = (f"  stranger as node {writer} ({partition or 'network'} partition, "
               f"{'files ' + os.path.basename(sec) if sec else 'no certificate'})")
        if presence:
            env["RFM_ROGUE_PRESENCE"] = str(64 * 1024)
            # It holds its claim while stdin is open: ready signal "claimed".
            rogue = subprocess.Popen(argv, env=env, stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, text=True)
            line = rogue.stdout.readline().strip()
            print(f"{who}: {line or 'exit ' + str(rogue.wait())}")
            return rogue if line == "claimed" else rogue.wait()
        out = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=120)
        print(f"{who}: exit {out.returncode} {out.stderr.strip()}")
        return out.returncode

    def stop(self):
        for p in self.peers:
            p.stop()
        self.peers = []


def untouched(victims, n):
    """At each victim: nothing at 0x400, no event from node 7 or 1's forger, n nodes."""
    for v in victims:
        assert v.ask("read 0x400 4") == "data", f"node {v.k}: the stranger's write landed"
        assert v.ask(f"wait {INTR1} 7 1") == "timeout", f"node {v.k}: a stranger's event"
        v.nodes(n)


def make_files(out):
    def run(*args):
        subprocess.run([MAKE_FILES, DOC, *args], check=True)

    run(out, os.environ.get("RFM_TEST_PROTECT", "ENCRYPT"), "1", "2", "3")
    run(os.path.join(out, "other"), "ENCRYPT", "1")
    # The forger: node 3's identity, permissions of its own (publish in any
    # partition) signed by the other CA, the governance that CA signed.
    forged = os.path.join(out, "forged3")
    os.mkdir(forged)
    for f in ("ca.pem", "node.pem", "node.key"):
        shutil.copy(os.path.join(out, "node3", f), forged)
    shutil.copy(os.path.join(out, "other", "site", "governance.p7s"), forged)
    with open(os.path.join(out, "node3", "permissions.xml")) as f:
        perm = f.read()
    assert "<partition>*.node.3</partition>" in perm
    with open(os.path.join(forged, "permissions.xml"), "w") as f:
        f.write(perm.replace("<partition>*.node.3</partition>", "<partition>*</partition>"))
    other = os.path.join(out, "other", "site")
    subprocess.run(["openssl", "smime", "-sign", "-text", "-in",
                    os.path.join(forged, "permissions.xml"), "-out",
                    os.path.join(forged, "permissions.p7s"), "-signer",
                    os.path.join(other, "ca.pem"), "-inkey", os.path.join(other, "ca.key")],
                   check=True)
    bad = os.path.join(out, "badkey")
    shutil.copytree(os.path.join(out, "node1"), bad)
    with open(os.path.join(bad, "node.key"), "w") as f:
        f.write("not a key\n")
    # Node 1's files with node 2's certificate: the key is not its key.
    mismatch = os.path.join(out, "mismatch")
    shutil.copytree(os.path.join(out, "node1"), mismatch)
    shutil.copy(os.path.join(out, "node2", "node.pem"), mismatch)


def claimed(net, writer, text, **kw):
    """The stranger claims node `writer` and sends its sample; it holds the claim."""
    claimer = net.rogue(writer, text, presence=True, **kw)
    assert not isinstance(claimer, int), f"the stranger's claim was not taken: exit {claimer}"
    return claimer


def release(claimer):
    claimer.stdin.close()
    assert claimer.wait() == 0


def baseline(env, domain):
    print("baseline: without security a stranger claims node 7, writes and sends events as it")
    net = Network(env, f"plain{os.getpid()}", domain)
    try:
        p1, p2 = net.start(1), net.start(2)
        p2.ok(f"enable {1 << INTR1:x}")
        claimer = claimed(net, 7, "EVIL")
        p2.nodes(3)  # node 7 counted as attached
        assert p2.ask(f"until 0x400 EVIL {GUARD_MS}") == "ok"
        release(claimer)
        claimer = claimed(net, 7, "0xbad", event=INTR1)
        assert p2.event(INTR1, 7) == 0xbad
        release(claimer)
        del p1
    finally:
        net.stop()


def secure(env, domain, files):
    net = Network(env, f"sec{os.getpid()}", domain)

    def start(k):
        return net.start(k, f"&security={files}/node{k}")

    try:
        print("an authenticated network of three nodes works")
        p1, p2, p3 = start(1), start(2), start(3)
        for p in (p1, p2, p3):
            p.nodes(3)
        p2.ok(f"enable {1 << INTR1 | 1 << INTR2 | 1 << NODE_UP | 1 << NODE_DOWN:x}")
        p3.ok(f"enable {1 << INTR1 | 1 << INTR2:x}")
        p1.ok("write 0x100 hello")
        p1.ok("send 2 1 7")
        assert p2.event(INTR1, 1) == 7
        assert p2.ask("read 0x100 5") == "data hello"
        assert p3.ask(f"until 0x100 hello {GUARD_MS}") == "ok"
        p1.ok("rwrite 42")
        p2.event(INTR2, 1)
        assert p2.ask("rread") == "record 42"
        p1.ok("ring-create")
        p1.ok("send 3 1 8")
        assert p3.event(INTR1, 1) == 8
        p3.ok("ring-open")
        for word in ("one", "two", "three"):
            p1.ok(f"ring-pub {word}")
        for word in ("one", "two", "three"):
            assert p3.ask(f"ring-take {GUARD_MS}") == f"msg {word}"
        for p in (p1, p2):
            p.ok("health 200 20")  # heartbeats: node 2 sees node 1 up by them
        p2.event(NODE_UP, 1)

        print("strangers get nowhere: asserted at nodes 2 and 3")
        victims = (p2, p3)
        print("- no certificate")
        assert net.rogue(7, "EVIL") == ROGUE_UNMATCHED
        assert net.rogue(7, "EVIL", partition="node.7") == ROGUE_UNMATCHED
        assert net.rogue(7, "0xbad", partition="node.7", event=INTR1) == ROGUE_UNMATCHED
        assert net.rogue(7, "EVIL", partition="node.7", presence=True) == ROGUE_UNMATCHED
        untouched(victims, 3)
        print("- a certificate of another CA")
        assert net.rogue(7, "EVIL", partition="node.1",
                         sec=f"{files}/other/node1") == ROGUE_UNMATCHED
        assert net.rogue(7, "EVIL", partition="node.1", sec=f"{files}/other/node1",
                         presence=True) == ROGUE_UNMATCHED
        untouched(victims, 3)
        print("- node 3's certificate publishing as node 1")
        assert net.rogue(1, "EVIL", partition="node.1",
                         sec=f"{files}/node3") == ROGUE_NOT_PUBLISHED
        assert net.rogue(1, "EVIL", partition="node.1", sec=f"{files}/forged3",
                         pca=f"{files}/other/site/ca.pem") == ROGUE_UNMATCHED
        untouched(victims, 3)
        print("- node 3's certificate, in its own partition, claiming node 7 and writing as 7")
        claimer = claimed(net, 7, "EVIL", partition="node.3", sec=f"{files}/node3")
        untouched(victims, 3)
        release(claimer)
        print("- node 3's certificate, in its own partition, writing as node 1")
        assert net.rogue(1, "EVIL", partition="node.3", sec=f"{files}/node3") == ROGUE_MATCHED
        untouched(victims, 3)
        print("the network still works, and a node that leaves is gone")
        p1.ok("write 0x500 after")
        assert p3.ask(f"until 0x500 after {GUARD_MS}") == "ok"
        p1.stop()
        net.peers.remove(p1)
        p2.event(NODE_DOWN, 1)
    finally:
        net.stop()


def revoked(env, domain, files):
    print("a revoked certificate: node 3's, with the CA's list at nodes 1 and 2")
    subprocess.run([MAKE_FILES, "--revoke", DOC, files, "3"], check=True)
    for k in (1, 2):
        shutil.copy(os.path.join(files, "site", "crl.pem"), os.path.join(files, f"node{k}"))
    net = Network(env, f"crl{os.getpid()}", domain)
    try:
        p1, p2 = (net.start(k, f"&security={files}/node{k}") for k in (1, 2))
        p2.nodes(2)
        for p in (p1, p2):
            p.ok(f"enable {1 << INTR1:x}")
        assert net.rogue(3, "EVIL", partition="node.3", sec=f"{files}/node3") == ROGUE_UNMATCHED
        untouched((p1, p2), 2)
        p1.ok("write 0x500 after")
        assert p2.ask(f"until 0x500 after {GUARD_MS}") == "ok"
    finally:
        net.stop()
    # Node 3's own list names its certificate: it cannot open at all.
    d = os.path.join(files, "self-revoked")
    shutil.copytree(os.path.join(files, "node3"), d)
    shutil.copy(os.path.join(files, "site", "crl.pem"), d)
    code, msg = open_error(env, f"dds:crl{os.getpid()}?node=3&size=64K&domain={domain}"
                                f"&join=50&security={d}")
    assert code == -8 and f"{d}/node.pem is revoked: crl.pem lists its certificate" in msg, \
        (code, msg)
    # Not a CRL where crl.pem stands: an error naming it.
    bad = os.path.join(files, "badcrl")
    shutil.copytree(os.path.join(files, "node1"), bad)
    with open(os.path.join(bad, "crl.pem"), "w") as f:
        f.write("not a list\n")
    code, msg = open_error(env, f"dds:crl{os.getpid()}?node=1&size=64K&domain={domain}"
                                f"&join=50&security={bad}")
    assert code == -1 and f"{bad}/crl.pem" in msg, (code, msg)  # RFM_EINVAL


def errors(env, domain, files):
    print("bad security= directories: clear errors naming the file")
    base = f"dds:err{os.getpid()}?size=64K&domain={domain}&join=50"
    code, msg = open_error(env, f"{base}&node=1&security={files}/none")
    assert code == -7 and f"{files}/none/ca.pem" in msg, (code, msg)  # RFM_ENOENT
    code, msg = open_error(env, f"{base}&node=1&security={files}/badkey")
    assert code == -1 and f"{files}/badkey/node.key" in msg, (code, msg)  # RFM_EINVAL
    code, msg = open_error(env, f"{base}&node=2&security={files}/node1")
    assert code == -8 and f"{files}/node1" in msg, (code, msg)  # RFM_EPERM
    code, msg = open_error(env, f"{base}&security={files}/node1")
    assert code == -4 and "node=" in msg, (code, msg)  # RFM_EURI
    loose = os.path.join(files, "loosekey")
    shutil.copytree(os.path.join(files, "node1"), loose)
    os.chmod(os.path.join(loose, "node.key"), 0o644)
    code, msg = open_error(env, f"{base}&node=1&security={loose}")
    assert code == -8 and "node.key is readable by others (mode 0644)" in msg, (code, msg)
    code, msg = open_error(env, f"{base}&node=1&security={files}/mismatch")
    assert code == -8 and f"{files}/mismatch/node.key is not node.pem's key" in msg, (code, msg)
    bad_files(env, base, files)


def openssl(*args):
    subprocess.run(["openssl", *args], check=True, capture_output=True)


def sign(site, xml, p7s):
    """Sign a document as docs/security.md does, with @site's CA."""
    openssl("smime", "-sign", "-text", "-in", xml, "-out", p7s, "-signer",
            os.path.join(site, "ca.pem"), "-inkey", os.path.join(site, "ca.key"))


def issue(site, csr, out, start, end, selfsign=False):
    """A certificate from @csr with the dates given (YYYYMMDDHHMMSSZ), by
    `openssl ca` (the docs' `openssl x509 -req` cannot date one in the past)."""
    conf = os.path.join(site, "dates.cnf")
    if not os.path.exists(conf):
        with open(conf, "w") as f:
            f.write(f"[ca]\ndefault_ca = dates\n[dates]\ndatabase = {site}/dates.txt\n"
                    f"new_certs_dir = {site}\nserial = {site}/dates.srl\n"
                    "default_md = sha256\nunique_subject = no\npolicy = any\n[any]\n"
                    "organizationName = optional\ncommonName = supplied\n")
        open(os.path.join(site, "dates.txt"), "w").close()
        with open(os.path.join(site, "dates.srl"), "w") as f:
            f.write("1000\n")
    openssl("ca", "-batch", "-notext", "-config", conf, "-keyfile", os.path.join(site, "ca.key"),
            *(["-selfsign"] if selfsign else ["-cert", os.path.join(site, "ca.pem")]),
            "-in", csr, "-out", out, "-startdate", start, "-enddate", end)


def variant(files, name, **replace):
    """node1's directory as @name, with files replaced: {file: source path or bytes}."""
    d = os.path.join(files, name)
    shutil.copytree(os.path.join(files, "node1"), d)
    for f, src in replace.items():
        f = f.replace("_", ".")
        if isinstance(src, bytes):
            with open(os.path.join(d, f), "wb") as out:
                out.write(src)
        else:
            shutil.copy(src, os.path.join(d, f))
    return d


def tampered(path):
    """The signed document with one byte of its signed text changed."""
    with open(path, "rb") as f:
        data = f.read()
    at = data.index(b"<dds")
    return data[:at + 1] + b"D" + data[at + 2:]


def bad_files(env, base, files):
    """Each file wrong in its own way: the error names it and says why."""
    site, other = os.path.join(files, "site"), os.path.join(files, "other", "site")
    n1 = os.path.join(files, "node1")
    past, before = "20200101000000Z", "20200102000000Z"
    future, later = "20400101000000Z", "20410101000000Z"
    issue(site, os.path.join(n1, "node.csr"), os.path.join(files, "expired.pem"), past, before)
    issue(site, os.path.join(n1, "node.csr"), os.path.join(files, "early.pem"), future, later)
    openssl("req", "-new", "-key", os.path.join(site, "ca.key"), "-out",
            os.path.join(files, "ca.csr"), "-subj", "/O=rfm site/CN=rfm site CA")
    issue(site, os.path.join(files, "ca.csr"), os.path.join(files, "oldca.pem"), past, before,
          selfsign=True)
    with open(os.path.join(n1, "permissions.xml")) as f:
        perm = f.read()
    ended = os.path.join(files, "ended.xml")
    with open(ended, "w") as f:
        f.write(re.sub(r"<not_after>[^<]*</not_after>",
                       "<not_after>2020-01-02T00:00:00</not_after>",
                       re.sub(r"<not_before>[^<]*</not_before>",
                              "<not_before>2020-01-01T00:00:00</not_before>", perm)))
    sign(site, ended, os.path.join(files, "ended.p7s"))
    sign(other, os.path.join(n1, "permissions.xml"), os.path.join(files, "otherperm.p7s"))
    openssl("ca", "-config", os.path.join(site, "dates.cnf"), "-keyfile",
            os.path.join(site, "ca.key"), "-cert", os.path.join(site, "ca.pem"), "-gencrl",
            "-crl_lastupdate", past, "-crl_nextupdate", before, "-out",
            os.path.join(files, "oldcrl.pem"))
    cases = [
        (variant(files, "expired", node_pem=os.path.join(files, "expired.pem")),
         "node.pem expired on 2020-01-02 00:00:00 UTC"),
        (variant(files, "early", node_pem=os.path.join(files, "early.pem")),
         "node.pem is not valid before 2040-01-01 00:00:00 UTC"),
        (variant(files, "oldca", ca_pem=os.path.join(files, "oldca.pem")),
         "ca.pem expired on 2020-01-02 00:00:00 UTC"),
        (variant(files, "othercert", node_pem=os.path.join(files, "other", "node1", "node.pem"),
                 node_key=os.path.join(files, "other", "node1", "node.key")),
         "node.pem is not signed by ca.pem"),
        (variant(files, "othergov", governance_p7s=os.path.join(other, "governance.p7s")),
         "governance.p7s is not signed by ca.pem"),
        (variant(files, "otherperm", permissions_p7s=os.path.join(files, "otherperm.p7s")),
         "permissions.p7s is not signed by ca.pem"),
        (variant(files, "changedgov",
                 governance_p7s=tampered(os.path.join(site, "governance.p7s"))),
         "governance.p7s was changed after"),
        (variant(files, "changedperm",
                 permissions_p7s=tampered(os.path.join(n1, "permissions.p7s"))),
         "permissions.p7s was changed after"),
        (variant(files, "node2perm",
                 permissions_p7s=os.path.join(files, "node2", "permissions.p7s")),
         "permissions.p7s grants nothing to node.pem's subject \"CN=rfm node 1,O=rfm site\" "
         "(it grants \"O=rfm site,CN=rfm node 2\")"),
        (variant(files, "ended", permissions_p7s=os.path.join(files, "ended.p7s")),
         "permissions.p7s: the grant for \"CN=rfm node 1,O=rfm site\" ended at "
         "2020-01-02T00:00:00"),
        (variant(files, "oldcrl", crl_pem=os.path.join(files, "oldcrl.pem")),
         "crl.pem expired on 2020-01-02 00:00:00 UTC"),
    ]
    for d, why in cases:
        code, msg = open_error(env, f"{base}&node=1&security={d}")
        name = os.path.basename(d)
        print(f"  {name}: {msg}")
        assert code == -8, (name, code, msg)  # RFM_EPERM
        assert f"{d}/{why}" in msg, (name, why, msg)


def main():
    if not shutil.which("openssl"):
        skip("no openssl (Debian: openssl)")
    if not os.path.exists(ROGUE) or not os.path.exists(PEER):
        skip("librfm was built without Cyclone DDS (Debian: cyclonedds-dev cyclonedds-tools)")
    env = dict(os.environ, LD_LIBRARY_PATH=os.path.abspath("src/.libs"))
    # Loopback only, unicast: nothing leaves this machine. A domain per pid.
    env.setdefault("CYCLONEDDS_URI",
                   '<CycloneDDS><Domain Id="any"><General><Interfaces>'
                   '<NetworkInterface name="lo"/></Interfaces>'
                   '<AllowMulticast>false</AllowMulticast></General>'
                   '<Discovery><ParticipantIndex>auto</ParticipantIndex>'
                   '<MaxAutoParticipantIndex>100</MaxAutoParticipantIndex>'
                   '<Peers><Peer Address="127.0.0.1"/></Peers></Discovery>'
                   '</Domain></CycloneDDS>')
    domain = 20 + os.getpid() % 200
    files = tempfile.mkdtemp(prefix="rfm-ddssec-")
    try:
        make_files(files)
        baseline(env, domain)
        secure(env, domain, files)
        errors(env, domain, files)
        revoked(env, domain, files)
    finally:
        shutil.rmtree(files, ignore_errors=True)
    print("test-dds-security: PASS")
    return 0


if __name__ == "__main__":
    sys.exit(main())
